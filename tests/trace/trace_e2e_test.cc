// NEXAR_TRACE end to end: ranks under nexrun (shared memory, and QUIC) write their trace
// files, tools/nexar-trace-merge.py joins them, and the merged timeline holds every rank's
// collectives (the same sequence numbers everywhere), the failing one with its error, and
// the point-to-point calls (tests/trace/check_merged_trace.py).
#include <catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {

void run_traced(int np, const std::vector<std::string>& env) {
  const std::string dir = "/tmp/nexar-trace-e2e-" + std::to_string(getpid()) + "-" + std::to_string(np);
  std::vector<std::string> e = env;
  e.push_back("NEXAR_TRACE=" + dir);
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", std::to_string(np), TRACE_PROBE}, &out, &err, 90s, e);
  INFO("np " << np << "\nstdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  REQUIRE(end.exit_code == 0);
  REQUIRE(launcher_test::count_of(out, "trace_probe ok") == static_cast<size_t>(np));
  const std::string merged = dir + "/merged.json";
  std::string mout, merr;
  auto m = launcher_test::run_program({"/usr/bin/python3", TRACE_MERGE, dir, "-o", merged}, &mout, &merr, 60s);
  INFO("merge: " << mout << merr);
  REQUIRE(m.exit_code == 0);
  std::string cout_, cerr_;
  auto c = launcher_test::run_program({"/usr/bin/python3", CHECK_TRACE, merged, std::to_string(np)}, &cout_, &cerr_, 60s);
  INFO("check: " << cout_ << cerr_);
  CHECK(c.exit_code == 0);
  CHECK(cout_ == "ok\n");
  std::string rm_out, rm_err;
  launcher_test::run_program({"/bin/rm", "-rf", dir}, &rm_out, &rm_err, 20s);
}

}  // namespace

TEST_CASE("NEXAR_TRACE on 3 ranks over shared memory: merged timeline", "[trace]") { run_traced(3, {}); }

TEST_CASE("NEXAR_TRACE on 2 ranks over QUIC: merged timeline", "[trace]") {
  run_traced(2, {"NEXAR_TRANSPORT=quic"});
}
