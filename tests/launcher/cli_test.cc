// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun's command line and launch failures: clear one-line errors, prompt exits.
#include <sys/stat.h>

#include <catch.hpp>
#include <fstream>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {
// A launch failure ends nexrun "at once": without starting the job it cannot run, well
// before the harness's 20 s limit. Generous for a loaded machine (a second was exceeded
// on 2 cores shared by several builds); a nexrun waiting on a rank or a rendezvous that
// cannot come would take the whole limit.
constexpr double kAtOnce = 5.0;
}  // namespace

TEST_CASE("--version and --help print and exit 0", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"--version"}, &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  CHECK(out.rfind("nexrun ", 0) == 0);
  e = run_nexrun({"--help"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(out.find("--tag-output") != std::string::npos);
  CHECK(out.find("--timeout") != std::string::npos);
  CHECK(out.find("--no-kill") != std::string::npos);
}

TEST_CASE("usage errors name what was wrong and exit 2", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "2"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("no program") != std::string::npos);
  e = run_nexrun({"-np", "0", probe_path(), "sleep", "0"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("np") != std::string::npos);
  e = run_nexrun({"--bogus", "-np", "1", probe_path()}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("--bogus") != std::string::npos);
  e = run_nexrun({probe_path(), "sleep", "0"}, &out, &err);  // -np missing
  CHECK(e.exit_code == 2);
  // Issue 19: CLI11's range check printed the largest double in full (300 digits).
  for (const char* bad : {"0", "-1", "inf", "5s"}) {
    e = run_nexrun({"-np", "1", "--timeout", bad, probe_path(), "sleep", "0"}, &out, &err);
    INFO(err);
    CHECK(e.exit_code == 2);
    CHECK(err.find("--timeout") != std::string::npos);
    CHECK(err.find(std::string("'") + bad + "' is not a number of seconds > 0") != std::string::npos);
    CHECK(err.size() < 200);
  }
  e = run_nexrun({"-np", "1", "--grace", "-1", probe_path(), "sleep", "0"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("'-1' is not a number of seconds >= 0") != std::string::npos);
  CHECK(err.size() < 200);
}

TEST_CASE("options after the program belong to the program", "[launcher]") {
  std::string out, err;
  // -np, --np=, --tag-output after the program name reach it untouched (it rejects them).
  Ended e = run_nexrun({"--np=2", probe_path(), "--tag-output", "-np", "5"}, &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 2);  // rank_probe: unknown mode '--tag-output'
  CHECK(count_of(err, "unknown mode '--tag-output'") >= 1);
  CHECK(out.find("[1,") == std::string::npos);  // nexrun did not take --tag-output
  // "--" ends the options too.
  e = run_nexrun({"-n", "1", "--", probe_path(), "sleep", "0"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ready 0") == 1);
}

TEST_CASE("a missing program fails at once with one line and 127", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "3", "/nonexistent/nexar-no-such-program"}, &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 127);
  CHECK(e.seconds < kAtOnce);
  CHECK(count_of(err, "\n") == 1);
  CHECK(err.find("nexar-no-such-program") != std::string::npos);
  e = run_nexrun({"-np", "2", "nexar-no-such-program-in-path"}, &out, &err);
  CHECK(e.exit_code == 127);
  CHECK(err.find("not found in PATH") != std::string::npos);
}

TEST_CASE("a program that is not executable fails with 126", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "2", "/etc/hostname"}, &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 126);
  CHECK(e.seconds < kAtOnce);
  CHECK(err.find("/etc/hostname") != std::string::npos);
}

TEST_CASE("a program exec refuses fails with 126 and leaves nothing behind", "[launcher]") {
  // Executable bits but no known format: execve fails with ENOEXEC in the child.
  const std::string tmp = make_temp_dir();
  const std::string bogus = tmp + "/not-a-program";
  std::ofstream(bogus) << "\x7f" << "garbage";
  REQUIRE(chmod(bogus.c_str(), 0755) == 0);
  std::string out, err;
  Ended e = run_nexrun({"-np", "3", bogus}, &out, &err, 20s, {"TMPDIR=" + tmp});
  REQUIRE(e.finished);
  CHECK(e.exit_code == 126);
  CHECK(e.seconds < kAtOnce);
  CHECK(count_of(err, "nexrun: ") == 1);
  CHECK(err.find("rank 0: cannot run") != std::string::npos);
  CHECK(err.find("Exec format error") != std::string::npos);
  CHECK(nexar_entries(tmp).empty());
  remove_tree(tmp);
}
