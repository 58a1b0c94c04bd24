// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One-host nexrun options added for many hosts: MPMD, -x, --output-filename,
// --timestamp-output, --display-map / --dry-run, -H naming this host only.
#include <catch.hpp>
#include <fstream>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

TEST_CASE("MPMD: each program gets its own ranks and arguments", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "1", "sh", "-c", "echo first-$NEXAR_RANK-of-$NEXAR_WORLD_SIZE", ":", "-np", "2", "sh",
                        "-c", "echo second-$NEXAR_RANK"},
                       &out, &err);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(out.find("first-0-of-3") != std::string::npos);
  CHECK(out.find("second-1") != std::string::npos);
  CHECK(out.find("second-2") != std::string::npos);
  e = run_nexrun({"-np", "1", "true", ":", "true"}, &out, &err);
  CHECK(e.exit_code == 2);
  CHECK(err.find("-np") != std::string::npos);
}

TEST_CASE("-x exports, output files and timestamps", "[launcher]") {
  const std::string dir = make_temp_dir();
  std::string out, err;
  Ended e = run_nexrun({"-np", "2", "-x", "NX_TEST_A=1", "-x", "HOME=/replaced", "--output-filename", dir,
                        "--timestamp-output", "sh", "-c", "echo a=$NX_TEST_A home=$HOME; echo e >&2"},
                       &out, &err);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(out.empty());
  for (int r = 0; r < 2; ++r) {
    std::ifstream f(dir + "/1/rank." + std::to_string(r) + "/stdout");
    std::string line;
    std::getline(f, line);
    CHECK(line.rfind("[20", 0) == 0);
    CHECK(line.find("] a=1 home=/replaced") != std::string::npos);
  }
  remove_tree(dir);
}

TEST_CASE("--dry-run and --display-map show the map", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-H", "localhost:3", "--dry-run", "true"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(out.find("host localhost (3 slots): ranks 0 1 2") != std::string::npos);
  e = run_nexrun({"-H", "h1:1,h2:1", "--dry-run", "--launch-agent", "rsh {host}", "true"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(out.find("agent: rsh h2 ") != std::string::npos);
  CHECK(out.find(" --agent 1") != std::string::npos);
  e = run_nexrun({"-H", "localhost:2", "--display-map", "sh", "-c", "echo r$NEXAR_RANK"}, &out, &err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "\nr") + (out.rfind("r", 0) == 0) == 2);
  CHECK(err.find("map: host localhost") != std::string::npos);
}
