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
