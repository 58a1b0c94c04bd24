// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Logging in the manner of NCCL: NEXAR_DEBUG picks the level, NEXAR_DEBUG_SUBSYS the
// subsystems; the check happens before any formatting. Lines look like
//   host:pid:tid [rank] NEXAR INFO NET message
//   host:pid:tid [rank] comm/comm.cc:212 NEXAR WARN NET message
// (a warning names the source line that printed it, as NCCL's do).
#pragma once

#include <atomic>
#include <cstdint>

namespace nexar {

enum class LogLevel : int { NONE = 0, WARN = 1, INFO = 2, TRACE = 3 };

enum LogSubsys : uint32_t {
  INIT = 1u << 0,
  ENV = 1u << 1,
  NET = 1u << 2,
  TLS = 1u << 3,
  P2P = 1u << 4,
  COLL = 1u << 5,
  BOOT = 1u << 6,
  LAUNCH = 1u << 7,
  ALL_SUBSYS = 0xffffffffu,
};

namespace log_detail {
// (level + 1) << 32 | the subsystem mask once NEXAR_DEBUG* were read, 0 before: the check
// every collective makes (its choice's log line) is then one load and two compares, inline.
extern std::atomic<uint64_t> g_gate;
// log_enabled's answer after reading NEXAR_DEBUG* (the first check of the process).
bool enabled_first(LogLevel level, LogSubsys subsys);
}  // namespace log_detail

inline bool log_enabled(LogLevel level, LogSubsys subsys) {
  const uint64_t gate = log_detail::g_gate.load(std::memory_order_acquire);
  if (gate == 0) [[unlikely]]
    return log_detail::enabled_first(level, subsys);
  return static_cast<uint64_t>(level) < (gate >> 32) && (static_cast<uint32_t>(gate) & subsys) != 0;
}
// file: __FILE__ of the caller; WARN lines show its last two path parts and line.
void log_write(LogLevel level, LogSubsys subsys, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
// The rank shown in each line once known (-1 before).
void log_set_rank(int rank);
// Re-read NEXAR_DEBUG* (tests).
void log_reload();

}  // namespace nexar

#define NX_LOG_AT(level, subsys, ...)                                                  \
  do {                                                                                 \
    if (::nexar::log_enabled(level, ::nexar::subsys))                                  \
      ::nexar::log_write(level, ::nexar::subsys, __FILE__, __LINE__, __VA_ARGS__);     \
  } while (0)
#define NX_WARN(subsys, ...) NX_LOG_AT(::nexar::LogLevel::WARN, subsys, __VA_ARGS__)
#define NX_INFO(subsys, ...) NX_LOG_AT(::nexar::LogLevel::INFO, subsys, __VA_ARGS__)
#define NX_TRACE(subsys, ...) NX_LOG_AT(::nexar::LogLevel::TRACE, subsys, __VA_ARGS__)
