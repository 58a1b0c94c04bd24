// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core/params.h"

namespace nexar {
namespace {

struct LogState {
  std::once_flag once;
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

void load(LogState& s) {
  // Warnings and errors are printed unless NEXAR_DEBUG=NONE: a failure must never be silent.
  const std::string lvl = param::NEXAR_DEBUG.get();
  int level = 1;
  if (strcasecmp(lvl.c_str(), "NONE") == 0) level = 0;
  else if (strcasecmp(lvl.c_str(), "INFO") == 0) level = 2;
  else if (strcasecmp(lvl.c_str(), "TRACE") == 0) level = 3;
  s.level = level;

  std::string spec = param::NEXAR_DEBUG_SUBSYS.get();
  bool negate = !spec.empty() && spec[0] == '^';
  if (negate) spec.erase(0, 1);
  uint32_t mask = 0;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    mask |= subsys_bit(spec.substr(pos, comma - pos));
    pos = comma + 1;
  }
  s.mask = negate ? ~mask : mask;
  s.file_pattern = param::NEXAR_DEBUG_FILE.get();
  gethostname(s.host, sizeof(s.host) - 1);
  if (char* dot = std::strchr(s.host, '.')) *dot = '\0';
}

// Expands %h %p %r in NEXAR_DEBUG_FILE. Called with s.mu held. A pattern with %r waits
// for the rank (log_set_rank): lines before it go to stderr, not to a file named -1.
void open_file(LogState& s) {
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

}  // namespace

bool log_enabled(LogLevel level, LogSubsys subsys) {
  LogState& s = state();
  std::call_once(s.once, [&] { load(s); });
  return static_cast<int>(level) <= s.level.load(std::memory_order_relaxed) &&
         (s.mask.load(std::memory_order_relaxed) & subsys) != 0;
}

void log_write(LogLevel level, LogSubsys subsys, const char* fmt, ...) {
  LogState& s = state();
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> lock(s.mu);
  open_file(s);
  std::fprintf(s.out, "%s:%d:%ld [%d] NEXAR %s %s %s\n", s.host, getpid(), static_cast<long>(syscall(SYS_gettid)),
               s.rank.load(), level_name(level), subsys_name(subsys), msg);
  std::fflush(s.out);
}

void log_set_rank(int rank) { state().rank = rank; }

void log_reload() {
  LogState& s = state();
  std::call_once(s.once, [&] { load(s); });
  std::lock_guard<std::mutex> lock(s.mu);
  load(s);
  // NEXAR_DEBUG_FILE is read again: the next line opens it anew.
  if (s.out != stderr) std::fclose(s.out);
  s.out = stderr;
  s.file_opened = false;
}

}  // namespace nexar
