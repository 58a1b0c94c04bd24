// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Every thread libnexar starts carries its own name ("nexar-..."), whatever the thread that
// started it was called (core/thread_name.h): thread_names_probe checks its own threads.
#include <catch.hpp>

#include <string>
#include <vector>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

namespace {
void world_named(const std::string& names, const std::vector<std::string>& env) {
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", "2", THREAD_NAMES_PROBE, "world", names}, &out, &err, 60s, env);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  CHECK(end.exit_code == 0);
  CHECK(launcher_test::count_of(out, "thread_names ok") == 2);
}
}  // namespace

TEST_CASE("a rank's threads over shared memory: progress, shm, watch, collectives, RPC", "[comm]") {
  world_named("nexar-quic,nexar-shm,nexar-watch,nexar-coll,nexar-rpc", {});
}

TEST_CASE("a rank's threads over TCP, and the trace writer", "[comm]") {
  const std::string dir = launcher_test::make_temp_dir();
  world_named("nexar-quic,nexar-tcp,nexar-coll,nexar-rpc,nexar-trace", {"NEXAR_TRANSPORT=tcp", "NEXAR_TRACE=" + dir});
  launcher_test::remove_tree(dir);
}

TEST_CASE("a process serving its unique id's rendezvous (one rank: no connections): its endpoint and timer", "[comm]") {
  std::string out, err;
  auto end = launcher_test::run_program({THREAD_NAMES_PROBE, "uid", "nexar-rdv,nexar-rdv-timer,nexar-coll,nexar-rpc"},
                                        &out, &err, 60s);
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(end.finished);
  CHECK(end.exit_code == 0);
  CHECK(launcher_test::count_of(out, "thread_names ok") == 1);
}
