// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/cores.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <fstream>

namespace nexar {

int usable_cores() {
  cpu_set_t cpus;
  int n = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  if (n == 1) n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return std::max(1, n);
}

std::string affinity_hex() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) return "";
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int base = CPU_SETSIZE - 4; base >= 0; base -= 4) {
    int d = 0;
    for (int b = 0; b < 4; ++b) d |= CPU_ISSET(base + b, &cpus) ? 1 << b : 0;
    if (d || !out.empty()) out += kDigits[d];
  }
  return out.empty() ? "0" : out;
}

int cpus_in_union(const std::vector<std::string>& masks) {
  std::vector<uint8_t> nibbles;  // least significant first
  for (const std::string& m : masks) {
    if (m.empty() || !std::all_of(m.begin(), m.end(), [](unsigned char c) { return std::isxdigit(c); })) continue;
    if (nibbles.size() < m.size()) nibbles.resize(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(m[m.size() - 1 - i])));
      nibbles[i] |= static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
  }
  int n = 0;
  for (uint8_t v : nibbles) n += std::popcount(static_cast<unsigned>(v));
  return n;
}

namespace {
// CPU 0's caches as sysfs lists them: level, bytes and whether no other CPU shares them.
struct CacheInfo {
  int level = 0;
  size_t bytes = 0;
  bool own = false;
};

std::vector<CacheInfo> read_caches() {
  std::vector<CacheInfo> caches;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_in(dir + "level"), size_in(dir + "size"), shared_in(dir + "shared_cpu_list");
    CacheInfo c;
    char unit = 0;
    std::string shared;
    if (!(level_in >> c.level) || !(size_in >> c.bytes) || c.bytes == 0) continue;
    if (size_in >> unit) c.bytes <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    c.own = (shared_in >> shared) && shared.find_first_of(",-") == std::string::npos;
    caches.push_back(c);
  }
  return caches;
}

// The highest level's bytes among the caches `pick` accepts (0: none).
template <typename Pick>
size_t highest_cache_bytes(Pick pick) {
  size_t best = 0;
  int best_level = 0;
  for (const CacheInfo& c : read_caches())
    if (pick(c) && c.level >= best_level) best = c.bytes, best_level = c.level;
  return best;
}

// sysfs first: in a VM the C library's CPUID reading can report the whole package's L3
// (256 MiB here) where the cores share 32 MiB.
size_t read_last_level_cache_bytes() {
  if (const size_t best = highest_cache_bytes([](const CacheInfo&) { return true; }); best > 0) return best;
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return static_cast<size_t>(v);
  }
  return 0;
}
}  // namespace

size_t last_level_cache_bytes() {
  // Read once: the cost model is built per call by the algorithms that plan from it
  // (ring_pipelined, bucketed), and sysfs costs ~30 file opens.
  static const size_t bytes = read_last_level_cache_bytes();
  return bytes;
}

size_t private_cache_bytes() {
  static const size_t bytes = highest_cache_bytes([](const CacheInfo& c) { return c.own; });
  return bytes;
}

}  // namespace nexar
