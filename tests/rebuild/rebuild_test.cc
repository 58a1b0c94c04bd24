// nexar_comm_rebuild with nexrun --respawn: a rank is killed, nexrun starts its replacement
// (NEXAR_RESTART_COUNT=1), the survivors rebuild and the replacement's nexar_init returns
// the same new world; it must be a full world (rebuild_probe's checks). Without a
// replacement, rebuild fails with NEXAR_ERR_PEER_LOST within the communicator's timeout.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::RankRun;
using namespace std::chrono_literals;

namespace {

RankRun respawn_run(int np, int victim, const std::vector<std::string>& env) {
  std::vector<std::string> e = {"NEXAR_PEER_TIMEOUT=1"};
  e.insert(e.end(), env.begin(), env.end());
  return launcher_test::run_ranks(np, {REBUILD_PROBE, "respawn", std::to_string(victim)}, e, {"--respawn", "1"}, 90s);
}

void expect_rebuilt(const RankRun& r, int np, int victim) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code == 0);
  CHECK(count_of(r.out, "victim " + std::to_string(victim) + " dies") == 1);
  CHECK(count_of(r.out, "replacement " + std::to_string(victim) + " incarnation 1 joined") == 1);
  CHECK(count_of(r.out, "rebuilt ") == static_cast<size_t>(np - 1));
  CHECK(count_of(r.out, " ok\n") == static_cast<size_t>(np));
  CHECK(count_of(r.err, "starting replacement 1 of rank " + std::to_string(victim)) == 1);
}

}  // namespace

TEST_CASE("rebuild with a replacement on shared memory", "[rebuild]") {
  expect_rebuilt(respawn_run(3, 1, {}), 3, 1);
}

TEST_CASE("rebuild with a replacement of rank 0 on shared memory", "[rebuild]") {
  expect_rebuilt(respawn_run(4, 0, {}), 4, 0);
}

TEST_CASE("rebuild with a replacement over QUIC", "[rebuild]") {
  expect_rebuilt(respawn_run(3, 2, {"NEXAR_TRANSPORT=quic"}), 3, 2);
}

TEST_CASE("rebuild with no replacement fails with PEER_LOST within the timeout", "[rebuild]") {
  RankRun r = launcher_test::run_ranks(3, {REBUILD_PROBE, "alone", "2"}, {"NEXAR_PEER_TIMEOUT=1"},
                                       {"--enable-recovery"}, 60s);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.end.finished);
  CHECK(r.end.exit_code == 0);  // the survivors ended well after the failure
  CHECK(count_of(r.out, "alone ") == 2);
  CHECK(count_of(r.out, "rank 2 neither called nexar_comm_rebuild nor was replaced") == 2);
}
