// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <mutex>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/text.h"

namespace nexar {
namespace {

struct LogState {
  std::once_flag once;
  // Set once load_once's call ran: later checks skip std::call_once, whose thread-local
  // lookups cost more than the check itself (it runs on every collective).
  std::atomic<bool> loaded{false};
  std::atomic<int> level{0};
  std::atomic<uint32_t> mask{ALL_SUBSYS};
  std::atomic<int> rank{-1};
  std::mutex mu;
  FILE* out = stderr;
  std::string file_pattern;
  bool file_opened = false;
  char host[64] = {0};
};

LogState& state() {
  static LogState* s = new LogState;
  return *s;
}

uint32_t subsys_bit(const std::string& name) {
  static const struct { const char* n; uint32_t b; } table[] = {
      {"INIT", INIT}, {"ENV", ENV}, {"NET", NET}, {"TLS", TLS}, {"P2P", P2P},
      {"COLL", COLL}, {"BOOT", BOOT}, {"LAUNCH", LAUNCH}, {"ALL", ALL_SUBSYS}};
  for (const auto& e : table)
    if (strcasecmp(e.n, name.c_str()) == 0) return e.b;
  return 0;
}

// Reads NEXAR_DEBUG*; returns what was wrong with them (written once the state is loaded:
// writing takes s.mu, which log_reload holds here).
std::vector<std::string> load(LogState& s) {
  std::vector<std::string> problems;
  // Warnings and errors are printed unless NEXAR_DEBUG=NONE: a failure must never be silent.
  const std::string lvl = param::NEXAR_DEBUG.get();
  int level = 1;
  if (strcasecmp(lvl.c_str(), "NONE") == 0) level = 0;
  else if (strcasecmp(lvl.c_str(), "INFO") == 0) level = 2;
  else if (strcasecmp(lvl.c_str(), "TRACE") == 0) level = 3;
  else if (!lvl.empty() && strcasecmp(lvl.c_str(), "WARN") != 0)
    problems.push_back("NEXAR_DEBUG=" + lvl + " is not NONE, WARN, INFO or TRACE; WARN is used");
  s.level = level;

  std::string spec = param::NEXAR_DEBUG_SUBSYS.get();
  bool negate = !spec.empty() && spec[0] == '^';
  if (negate) spec.erase(0, 1);
  uint32_t mask = 0;
  for (const std::string& name : split(spec, ',')) {
    const uint32_t bit = subsys_bit(name);
    if (bit == 0 && !name.empty())
      problems.push_back("NEXAR_DEBUG_SUBSYS names unknown subsystem '" + name +
                         "' (known: INIT, ENV, NET, TLS, P2P, COLL, BOOT, LAUNCH, ALL)");
    mask |= bit;
  }
  s.mask = negate ? ~mask : mask;
  s.file_pattern = param::NEXAR_DEBUG_FILE.get();
  gethostname(s.host, sizeof(s.host) - 1);
  if (char* dot = std::strchr(s.host, '.')) *dot = '\0';
  log_detail::g_gate.store(static_cast<uint64_t>(level + 1) << 32 | s.mask.load(), std::memory_order_release);
  return problems;
}

// Expands %h %p %r in NEXAR_DEBUG_FILE. Called with s.mu held. A pattern with %r waits
// for the rank (log_set_rank): lines before it go to stderr, not to a file named -1. A
// file that cannot be opened leaves the lines on stderr; *problem says why.
void open_file(LogState& s, std::string* problem) {
  if (s.file_opened || s.file_pattern.empty()) return;
  if (s.rank.load() < 0 && s.file_pattern.find("%r") != std::string::npos) return;
  std::string path;
  for (size_t i = 0; i < s.file_pattern.size(); ++i) {
    char c = s.file_pattern[i];
    if (c == '%' && i + 1 < s.file_pattern.size()) {
      char k = s.file_pattern[++i];
      if (k == 'h') path += s.host;
      else if (k == 'p') path += std::to_string(getpid());
      else if (k == 'r') path += std::to_string(s.rank.load());
      else path += k;
    } else {
      path += c;
    }
  }
  if (FILE* f = std::fopen(path.c_str(), "a")) s.out = f;
  else *problem = "NEXAR_DEBUG_FILE: cannot open " + path + ": " + std::strerror(errno) + "; logging to stderr";
  s.file_opened = true;
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::WARN: return "WARN";
    case LogLevel::INFO: return "INFO";
    case LogLevel::TRACE: return "TRACE";
    default: return "";
  }
}

const char* subsys_name(LogSubsys s) {
  switch (s) {
    case INIT: return "INIT";
    case ENV: return "ENV";
    case NET: return "NET";
    case TLS: return "TLS";
    case P2P: return "P2P";
    case COLL: return "COLL";
    case BOOT: return "BOOT";
    case LAUNCH: return "LAUNCH";
    default: return "";
  }
}

// "comm/comm.cc" of "/src/runtime/comm/comm.cc": enough to find it, short enough to read.
const char* short_path(const char* file) {
  const char* last = std::strrchr(file, '/');
  if (!last) return file;
  const char* p = last;
  while (p > file && p[-1] != '/') --p;
  return p;
}

// One line; called with s.mu held.
void write_line(LogState& s, LogLevel level, LogSubsys subsys, const char* file, int line, const char* msg) {
  char where[128] = "";
  if (level == LogLevel::WARN && file) std::snprintf(where, sizeof(where), "%s:%d ", short_path(file), line);
  std::fprintf(s.out, "%s:%d:%ld [%d] %sNEXAR %s %s %s\n", s.host, getpid(), static_cast<long>(syscall(SYS_gettid)),
               s.rank.load(), where, level_name(level), subsys_name(subsys), msg);
  std::fflush(s.out);
}

// One line to NEXAR_DEBUG_FILE (opened first if need be) or stderr; called with s.mu held.
void emit(LogState& s, LogLevel level, LogSubsys subsys, const char* file, int line, const char* msg) {
  std::string problem;
  open_file(s, &problem);
  if (!problem.empty()) write_line(s, LogLevel::WARN, ENV, __FILE__, __LINE__, problem.c_str());
  write_line(s, level, subsys, file, line, msg);
}

// Warns about the settings (unless NEXAR_DEBUG=NONE), after load() and with s.mu free.
void report(LogState& s, const std::vector<std::string>& problems) {
  if (problems.empty() || s.level.load() < static_cast<int>(LogLevel::WARN)) return;
  std::lock_guard<std::mutex> lock(s.mu);
  for (const std::string& p : problems) emit(s, LogLevel::WARN, ENV, __FILE__, __LINE__, p.c_str());
}

void load_once(LogState& s) {
  if (s.loaded.load(std::memory_order_acquire)) return;
  std::call_once(s.once, [&] {
    const std::vector<std::string> problems = load(s);
    report(s, problems);
  });
  s.loaded.store(true, std::memory_order_release);
}

}  // namespace

std::atomic<uint64_t> log_detail::g_gate{0};

bool log_detail::enabled_first(LogLevel level, LogSubsys subsys) {
  LogState& s = state();
  load_once(s);
  return static_cast<int>(level) <= s.level.load(std::memory_order_relaxed) &&
         (s.mask.load(std::memory_order_relaxed) & subsys) != 0;
}

void log_write(LogLevel level, LogSubsys subsys, const char* file, int line, const char* fmt, ...) {
  LogState& s = state();
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> lock(s.mu);
  emit(s, level, subsys, file, line, msg);
}

void log_set_rank(int rank) { state().rank = rank; }

void log_reload() {
  LogState& s = state();
  load_once(s);
  std::vector<std::string> problems;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    problems = load(s);
    // NEXAR_DEBUG_FILE is read again: the next line opens it anew.
    if (s.out != stderr) std::fclose(s.out);
    s.out = stderr;
    s.file_opened = false;
  }
  report(s, problems);
}

}  // namespace nexar
