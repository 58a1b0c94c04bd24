// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Output forwarding: whole lines, --tag-output prefixes, partial last lines flushed.
#include <catch.hpp>
#include <regex>
#include <sstream>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("--tag-output prefixes every line with rank and stream", "[launcher]") {
  constexpr int N = 3, LINES = 200;
  std::string out, err;
  Ended e = run_nexrun({"-np", std::to_string(N), "--tag-output", probe_path(), "print", std::to_string(LINES)},
                       &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  const std::regex out_line(R"(\[1,(\d+)\]<stdout>: (out (\d+) line \d+|partial (\d+)))");
  const std::regex err_line(R"(\[1,(\d+)\]<stderr>: err (\d+) line \d+)");
  std::vector<int> out_count(N), err_count(N), partial(N);
  for (const std::string& l : lines_of(out)) {
    std::smatch m;
    REQUIRE(std::regex_match(l, m, out_line));  // whole lines only, never mixed
    const int rank = std::stoi(m[1]);
    REQUIRE(rank < N);
    if (m[3].matched) {
      CHECK(std::stoi(m[3]) == rank);
      ++out_count[rank];
    } else {
      CHECK(std::stoi(m[4]) == rank);
      ++partial[rank];
    }
  }
  for (const std::string& l : lines_of(err)) {
    std::smatch m;
    REQUIRE(std::regex_match(l, m, err_line));
    CHECK(m[1] == m[2]);
    ++err_count[std::stoi(m[1])];
  }
  for (int r = 0; r < N; ++r) {
    CHECK(out_count[r] == LINES);
    CHECK(err_count[r] == LINES);
    CHECK(partial[r] == 1);  // the unterminated last line, flushed and ended
  }
  CHECK(out.back() == '\n');
}

TEST_CASE("without --tag-output lines pass through unchanged", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "1", probe_path(), "print", "3"}, &out, &err);
  REQUIRE(e.finished);
  CHECK(e.exit_code == 0);
  CHECK(out == "out 0 line 0\nout 0 line 1\nout 0 line 2\npartial 0");
  CHECK(err == "err 0 line 0\nerr 0 line 1\nerr 0 line 2\n");
}

TEST_CASE("ranks' lines never interleave without tags either", "[launcher]") {
  std::string out, err;
  Ended e = run_nexrun({"-np", "4", probe_path(), "print", "500"}, &out, &err);
  REQUIRE(e.finished);
  const std::regex line(R"(err \d+ line \d+)");
  size_t n = 0;
  for (const std::string& l : lines_of(err)) {
    CHECK(std::regex_match(l, line));
    ++n;
  }
  CHECK(n == 4 * 500);
}
