// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The bundled examples run under nexrun and print what they compute.
#include <catch.hpp>

#include "launcher/nexrun_process.h"

using namespace std::chrono_literals;

TEST_CASE("the C ring example on 4 ranks", "[examples]") {
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", "4", EXAMPLE_RING}, &out, &err, 30s);
  INFO(out << err);
  REQUIRE(end.exit_code == 0);
  REQUIRE(launcher_test::count_of(out, "hello from rank") == 4);
  REQUIRE(out.find("token came back to rank 0 as 6 (expected 6)") != std::string::npos);
}

TEST_CASE("the C++ ring example on 3 ranks", "[examples]") {
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", "3", EXAMPLE_RING_CPP}, &out, &err, 30s);
  INFO(out << err);
  REQUIRE(end.exit_code == 0);
  REQUIRE(out.find("token came back as 3 (expected 3)") != std::string::npos);
}

TEST_CASE("resilient_train loses a rank, rebuilds in place and ends with the undisturbed model", "[examples]") {
  auto final_line = [](const std::string& out) {
    const size_t p = out.find("final model after 30 steps:");
    return p == std::string::npos ? std::string() : out.substr(p, out.find('\n', p) - p);
  };
  std::string out, err;
  auto end = launcher_test::run_nexrun({"-np", "3", EXAMPLE_RESILIENT}, &out, &err, 60s);
  INFO(out << err);
  REQUIRE(end.exit_code == 0);
  const std::string undisturbed = final_line(out);
  REQUIRE(!undisturbed.empty());
  end = launcher_test::run_nexrun({"-np", "3", "--respawn", "1", EXAMPLE_RESILIENT}, &out, &err, 90s,
                                  {"RESILIENT_KILL_STEP=12", "RESILIENT_KILL_RANK=1", "NEXAR_PEER_TIMEOUT=1"});
  INFO(out << err);
  REQUIRE(end.exit_code == 0);
  CHECK(out.find("rank 1: dying at step 12") != std::string::npos);
  CHECK(out.find("rank 1: replacement 1 joined the rebuilt world") != std::string::npos);
  CHECK(out.find("recovered at step ") != std::string::npos);
  CHECK(final_line(out) == undisturbed);
}
