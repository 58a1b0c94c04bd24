// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The environment check: typos of parameter names and malformed values are named.
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/params.h"

using nexar::params::environment_problems;
using nexar::params::nearest_name;

TEST_CASE("a typo of a parameter name names the nearest known one") {
  CHECK(nearest_name("NEXAR_TIMEOT") == "NEXAR_TIMEOUT");
  CHECK(nearest_name("NEXAR_DEBUG_SUBSIS") == "NEXAR_DEBUG_SUBSYS");
  CHECK(nearest_name("NEXAR_COMPLETELY_DIFFERENT_THING") == "");
  auto p = environment_problems({"NEXAR_IFACES=eth0"});
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "NEXAR_IFACES is not a nexar parameter; did you mean NEXAR_IFACE?");
  p = environment_problems({"NEXAR_ZZZZZZZZZZZZZZZZ=1"});
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "NEXAR_ZZZZZZZZZZZZZZZZ is not a nexar parameter (nexar-info lists them)");
}

TEST_CASE("a value that does not parse as its type is named with the default used") {
  auto p = environment_problems({"NEXAR_TIMEOUT=5s", "NEXAR_EAGER_LIMIT=64k", "NEXAR_SHM_CMA=maybe"});
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "NEXAR_TIMEOUT=5s is not a number; the default 300 is used");
  CHECK(p[1] == "NEXAR_EAGER_LIMIT=64k is not an integer; the default 65536 is used");
  CHECK(p[2].rfind("NEXAR_SHM_CMA=maybe is not a boolean", 0) == 0);
}

TEST_CASE("well-formed parameters, other variables and the launcher's own give no warning") {
  // What nexrun sets for every rank (launcher/rank_env.cc) is in the registry.
  CHECK(environment_problems({"NEXAR_TIMEOUT=2.5", "NEXAR_EAGER_LIMIT=0x1000", "NEXAR_SHM_CMA=off", "NEXAR_RANK=3",
                              "NEXAR_WORLD_SIZE=8", "NEXAR_LOCAL_RANK=1", "NEXAR_LOCAL_SIZE=4", "NEXAR_NODE_RANK=0",
                              "NEXAR_NUM_NODES=2", "NEXAR_JOB_ID=ab12", "NEXAR_RENDEZVOUS=127.0.0.1:5",
                              "NEXAR_CREDENTIALS=/tmp/x", "NEXAR_DEBUG=INFO", "NEXAR_TEST_BIN_DIR=/b", "PATH=/bin",
                              "NEXARX=1"})
            .empty());
}

TEST_CASE("booleans read in any case; a malformed one reads as its default", "[params]") {
  // Issue 19: "TRUE" read as false (and was reported as not a boolean).
  CHECK(environment_problems({"NEXAR_SHM_CMA=TRUE", "NEXAR_SHM_COLL=Off", "NEXAR_NCCL=No"}).empty());
  struct Case {
    const char* text;
    bool value;
  } cases[] = {{"TRUE", true}, {"Yes", true}, {"ON", true}, {"1", true},
               {"FALSE", false}, {"off", false}, {"No", false}, {"0", false},
               {"maybe", true}};  // NEXAR_SHM_CMA's default is 1
  for (const Case& c : cases) {
    setenv("NEXAR_SHM_CMA", c.text, 1);
    nexar::params::reload();
    INFO(c.text);
    CHECK(nexar::param::NEXAR_SHM_CMA.get() == c.value);
  }
  unsetenv("NEXAR_SHM_CMA");
  nexar::params::reload();
}

TEST_CASE("typed handles parse once per reload; a malformed value reads as the default", "[params]") {
  // Every default parses as its parameter's type (a typo in params_table.h fails here).
  const auto& defs = nexar::params::all();
  for (const auto& d : defs) {
    INFO(d.name);
    CHECK(nexar::params::parses_as(d.type, d.default_value));
  }
  setenv("NEXAR_SHM_STAGE_MAX", "0x1000", 1);
  setenv("NEXAR_TIMEOUT", "2.5", 1);
  setenv("NEXAR_TRANSPORT", "quic", 1);
  setenv("NEXAR_EAGER_LIMIT", "64k", 1);
  nexar::params::reload();
  CHECK(nexar::param::NEXAR_SHM_STAGE_MAX.get() == 4096);
  CHECK(nexar::param::NEXAR_TIMEOUT.get() == 2.5);
  CHECK(nexar::param::NEXAR_TRANSPORT.get() == "quic");
  CHECK(nexar::param::NEXAR_TRANSPORT.is_set());
  CHECK(nexar::param::NEXAR_EAGER_LIMIT.get() == 65536);  // the default
  const auto& eager = nexar::params::value_at(static_cast<size_t>(nexar::params::Index::NEXAR_EAGER_LIMIT));
  CHECK(eager.malformed);
  CHECK(eager.text == "64k");
  CHECK_FALSE(nexar::param::NEXAR_ALGO.is_set());

  // Parsed once: a change of the environment is seen only after reload(), and a value
  // read before stays valid.
  const std::string& before = nexar::param::NEXAR_TRANSPORT.get();
  const uint64_t gen = nexar::params::generation();
  setenv("NEXAR_TRANSPORT", "auto", 1);
  CHECK(nexar::param::NEXAR_TRANSPORT.get() == "quic");
  nexar::params::reload();
  CHECK(nexar::params::generation() != gen);
  CHECK(nexar::param::NEXAR_TRANSPORT.get() == "auto");
  CHECK(before == "quic");

  // Threads reading while another reloads all see one whole snapshot or the next.
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      while (!stop.load()) {
        const int64_t v = nexar::param::NEXAR_SHM_STAGE_MAX.get();
        if (v != 4096) bad.fetch_add(1);
      }
    });
  for (int i = 0; i < 200; ++i) nexar::params::reload();
  stop = true;
  for (auto& t : readers) t.join();
  CHECK(bad.load() == 0);
  for (const char* n : {"NEXAR_SHM_STAGE_MAX", "NEXAR_TIMEOUT", "NEXAR_TRANSPORT", "NEXAR_EAGER_LIMIT"}) unsetenv(n);
  nexar::params::reload();
}
