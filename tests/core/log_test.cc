// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_DEBUG_FILE: %r names the file after the rank, so the file opens only once the rank
// is known (issue 19: lines logged before nexar_init knew it opened "<name>.-1").
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/log.h"
#include "core/params.h"

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void reload_all() {
  nexar::params::reload();
  nexar::log_reload();
}

}  // namespace

TEST_CASE("a NEXAR_DEBUG_FILE with %r opens once the rank is known", "[log]") {
  char tmpl[] = "/tmp/nexar-log-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  const std::string dir = tmpl;
  setenv("NEXAR_DEBUG", "INFO", 1);
  setenv("NEXAR_DEBUG_FILE", (dir + "/log.%r").c_str(), 1);
  nexar::log_set_rank(-1);
  reload_all();
  NX_INFO(INIT, "logged before the rank is known");
  nexar::log_set_rank(3);
  NX_INFO(INIT, "logged as rank 3");
  unsetenv("NEXAR_DEBUG");
  unsetenv("NEXAR_DEBUG_FILE");
  reload_all();  // closes the file
  CHECK_FALSE(exists(dir + "/log.-1"));
  const std::string text = read_file(dir + "/log.3");
  CHECK(text.find("logged as rank 3") != std::string::npos);
  unlink((dir + "/log.-1").c_str());
  unlink((dir + "/log.3").c_str());
  rmdir(dir.c_str());
}
