// allreduce shm_stage (collectives/allreduce_shm_stage.cc) end to end: real ranks under
// nexrun on one host, the algorithm forced, slot_probe's scenarios (slot_probe.cc says what
// each checks). Its three input paths: staged in the shared segment (the default), read by
// CMA (NEXAR_SHM_STAGE_BYTES=0), and chunks of one page (many claims, races between the
// claimers). The counts scenario alternates sizes, so the segment grows under the ranks
// and later results land where earlier staged inputs were.
#include <catch.hpp>

#include "launcher/rank_run.h"

using launcher_test::count_of;
using launcher_test::expect_ok;
using launcher_test::numbers_after;
using namespace std::chrono_literals;

namespace {

using Run = launcher_test::RankRun;

const char* const kStage = "NEXAR_ALGO=allreduce:shm_stage,broadcast:shm_flat,barrier:shm_flat";

Run run(int np, const std::string& scenario, std::vector<std::string> env, std::chrono::milliseconds timeout = 120s) {
  env.push_back(kStage);
  env.push_back("NEXAR_TIMEOUT=30");
  return launcher_test::run_ranks(np, {SLOT_PROBE, scenario}, env, {"--no-kill"}, timeout);
}

}  // namespace

TEST_CASE("shm_stage: counts, dtypes, in place, identical bits on 1-8 ranks", "[shm][slots][stage]") {
  for (int np : {1, 2, 3, 4, 8}) {
    INFO("np " << np);
    expect_ok(run(np, "counts", {}), np, "counts ok");
  }
}

TEST_CASE("shm_stage: inputs read by CMA, and one-page chunks", "[shm][slots][stage]") {
  for (int np : {2, 5}) {
    INFO("np " << np);
    expect_ok(run(np, "counts", {"NEXAR_SHM_STAGE_BYTES=0"}), np, "counts ok");
    expect_ok(run(np, "counts", {"NEXAR_SHM_STAGE_CHUNK=4096"}), np, "counts ok");
  }
}

TEST_CASE("shm_stage: ranks that disagree all get NEXAR_ERR_MISMATCH", "[shm][slots][stage][errors]") {
  for (const char* what : {"count", "dtype", "op"}) {
    const Run r = run(3, std::string("mismatch:") + what, {}, 60s);
    INFO(what);
    expect_ok(r, 3, "mismatch NEXAR_ERR_MISMATCH");
    CHECK(count_of(r.out, "called allreduce") >= 3);
  }
}

TEST_CASE("shm_stage: a rank killed during the allreduce is an error on the others within seconds",
          "[shm][slots][stage][fault]") {
  for (int np : {2, 4}) {
    const Run r = run(np, "kill", {"BIG=1"}, 60s);
    INFO("np " << np << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.end.finished);
    CHECK(count_of(r.out, "kill NEXAR_ERR_") == static_cast<size_t>(np - 1));
    CHECK(count_of(r.out, "kill NEXAR_ERR_TIMEOUT") == 0);
    for (double s : numbers_after(r.out, "after ")) CHECK(s < 3);
  }
}
