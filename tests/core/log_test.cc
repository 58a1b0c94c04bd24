// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The log's settings and its lines: NEXAR_DEBUG's levels, NEXAR_DEBUG_SUBSYS, the file and
// line of a warning, NEXAR_DEBUG_FILE's %h %p %r (%r: the file opens once the rank is known,
// not as "<name>.-1"), and a warning for each setting that cannot be honoured.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <functional>
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

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void reload_all() {
  nexar::params::reload();
  nexar::log_reload();
}

// A directory of its own, emptied and removed at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/nexar-log-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;  // a leftover temporary directory is not the test's failure
    std::filesystem::remove_all(path, ec);
  }
};

// Runs body with NEXAR_DEBUG=level and NEXAR_DEBUG_SUBSYS=subsys (empty: unset) logging to
// a file, and returns what the file holds after the log let go of it.
std::string logged(const char* level, const char* subsys, const std::function<void()>& body) {
  TempDir dir;
  const std::string file = dir.path + "/log";
  if (*level) setenv("NEXAR_DEBUG", level, 1);
  if (*subsys) setenv("NEXAR_DEBUG_SUBSYS", subsys, 1);
  setenv("NEXAR_DEBUG_FILE", file.c_str(), 1);
  reload_all();
  body();
  unsetenv("NEXAR_DEBUG");
  unsetenv("NEXAR_DEBUG_SUBSYS");
  unsetenv("NEXAR_DEBUG_FILE");
  reload_all();  // closes the file
  return read_file(file);
}

void one_of_each() {
  NX_WARN(INIT, "a warning");
  NX_INFO(INIT, "an info line");
  NX_TRACE(INIT, "a trace line");
}

}  // namespace

TEST_CASE("NEXAR_DEBUG shows its level and the levels above it", "[log]") {
  SECTION("unset: warnings only") {
    const std::string text = logged("", "", one_of_each);
    CHECK(has(text, "NEXAR WARN INIT a warning"));
    CHECK_FALSE(has(text, "an info line"));
  }
  SECTION("INFO") {
    const std::string text = logged("INFO", "", one_of_each);
    CHECK(has(text, "NEXAR WARN INIT a warning"));
    CHECK(has(text, "NEXAR INFO INIT an info line"));
    CHECK_FALSE(has(text, "a trace line"));
  }
  SECTION("trace, in any case") {
    const std::string text = logged("trace", "", one_of_each);
    CHECK(has(text, "NEXAR INFO INIT an info line"));
    CHECK(has(text, "NEXAR TRACE INIT a trace line"));
  }
  SECTION("NONE silences warnings too") { CHECK(logged("NONE", "", one_of_each).empty()); }
}

TEST_CASE("NEXAR_DEBUG_SUBSYS picks the subsystems, ^ leaves them out", "[log]") {
  auto three = [] {
    NX_INFO(COLL, "coll line");
    NX_INFO(NET, "net line");
    NX_INFO(BOOT, "boot line");
  };
  const std::string some = logged("INFO", "coll,NET", three);
  CHECK(has(some, "NEXAR INFO COLL coll line"));
  CHECK(has(some, "NEXAR INFO NET net line"));
  CHECK_FALSE(has(some, "boot line"));
  const std::string but = logged("INFO", "^COLL", three);
  CHECK_FALSE(has(but, "coll line"));
  CHECK(has(but, "net line"));
  CHECK(has(but, "boot line"));
}

TEST_CASE("a warning names the file and line that printed it; other lines do not", "[log]") {
  int line = 0;
  const std::string text = logged("INFO", "", [&] {
    line = __LINE__ + 1;
    NX_WARN(NET, "peer %d is slow", 3);
    NX_INFO(NET, "peer %d answered", 3);
  });
  const std::string where = "core/log_test.cc:" + std::to_string(line) + " NEXAR WARN NET peer 3 is slow";
  CHECK(has(text, where));
  CHECK(has(text, "] NEXAR INFO NET peer 3 answered"));
  // host:pid:tid [rank] before it
  CHECK(has(text, ":" + std::to_string(getpid()) + ":"));
}

TEST_CASE("settings the log cannot honour are named in a warning", "[log]") {
  SECTION("an unknown level reads as WARN") {
    const std::string text = logged("LOUD", "", one_of_each);
    CHECK(has(text, "NEXAR WARN ENV NEXAR_DEBUG=LOUD is not NONE, WARN, INFO or TRACE; WARN is used"));
    CHECK(has(text, "a warning"));
    CHECK_FALSE(has(text, "an info line"));
  }
  SECTION("an unknown subsystem is named; the known ones still log") {
    const std::string text = logged("INFO", "COLL,NETT", [] { NX_INFO(COLL, "coll line"); });
    CHECK(has(text, "NEXAR_DEBUG_SUBSYS names unknown subsystem 'NETT'"));
    CHECK(has(text, "NEXAR INFO COLL coll line"));
  }
}

TEST_CASE("a NEXAR_DEBUG_FILE that cannot be opened leaves the lines on stderr, saying why", "[log]") {
  TempDir dir;
  const std::string err_path = dir.path + "/stderr";
  const int saved = dup(2);
  REQUIRE(saved >= 0);
  const int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(dup2(fd, 2) == 2);
  close(fd);
  setenv("NEXAR_DEBUG_FILE", (dir.path + "/no/such/dir/log").c_str(), 1);
  reload_all();
  NX_WARN(INIT, "still seen");
  unsetenv("NEXAR_DEBUG_FILE");
  reload_all();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  const std::string text = read_file(err_path);
  CHECK(has(text, "NEXAR_DEBUG_FILE: cannot open " + dir.path + "/no/such/dir/log: No such file or directory; "
                  "logging to stderr"));
  CHECK(has(text, "NEXAR WARN INIT still seen"));
}

TEST_CASE("NEXAR_DEBUG_FILE expands %h and %p", "[log]") {
  TempDir dir;
  char host[64] = {0};
  gethostname(host, sizeof(host) - 1);
  std::string short_host = host;
  short_host = short_host.substr(0, short_host.find('.'));
  setenv("NEXAR_DEBUG_FILE", (dir.path + "/log.%h.%p.%%").c_str(), 1);
  reload_all();
  NX_WARN(INIT, "named by host and pid");
  unsetenv("NEXAR_DEBUG_FILE");
  reload_all();
  const std::string path = dir.path + "/log." + short_host + "." + std::to_string(getpid()) + ".%";
  CHECK(has(read_file(path), "named by host and pid"));
}

TEST_CASE("a NEXAR_DEBUG_FILE with %r opens once the rank is known", "[log]") {
  TempDir dir;
  setenv("NEXAR_DEBUG", "INFO", 1);
  setenv("NEXAR_DEBUG_FILE", (dir.path + "/log.%r").c_str(), 1);
  nexar::log_set_rank(-1);
  reload_all();
  NX_INFO(INIT, "logged before the rank is known");
  nexar::log_set_rank(3);
  NX_INFO(INIT, "logged as rank 3");
  unsetenv("NEXAR_DEBUG");
  unsetenv("NEXAR_DEBUG_FILE");
  reload_all();  // closes the file
  nexar::log_set_rank(-1);
  CHECK_FALSE(exists(dir.path + "/log.-1"));
  const std::string text = read_file(dir.path + "/log.3");
  CHECK(has(text, "[3] NEXAR INFO INIT logged as rank 3"));
  CHECK_FALSE(has(text, "before the rank is known"));
}
