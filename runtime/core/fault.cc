// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/fault.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/log.h"
#include "core/params.h"
#include "core/text.h"

namespace nexar::fault {

namespace {

// "key=value,..." -> value of key (def when absent); false on a malformed entry.
bool parse_rates(const std::string& spec, double* drop, double* dup, double* corrupt, double* delay, uint64_t* seed) {
  for (const std::string& item : split(spec, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(val.c_str(), &end);
    if (val.empty() || *end != '\0' || v < 0) return false;
    if (key == "drop") *drop = v;
    else if (key == "dup") *dup = v;
    else if (key == "corrupt") *corrupt = v;
    else if (key == "delay") *delay = v;
    else if (key == "seed") *seed = static_cast<uint64_t>(v);
    else return false;
  }
  return *drop + *dup + *corrupt + *delay <= 1.0;
}

// A RANK:POINT[:N] parameter, parsed once.
struct PointSpec {
  std::string point;
  long nth = 1;
  std::atomic<long> reached{0};
  long rank = -1;  // -1: malformed or empty, never hit

  explicit PointSpec(params::Param<params::Type::STRING> p) {
    const std::string v = p.get();
    if (v.empty()) return;
    const size_t a = v.find(':');
    const size_t b = a == std::string::npos ? std::string::npos : v.find(':', a + 1);
    char* end = nullptr;
    const long r = std::strtol(v.c_str(), &end, 10);
    if (a == std::string::npos || end != v.c_str() + a || r < 0) {
      NX_WARN(INIT, "%s='%s' is not RANK:POINT[:N]: ignored", p.name(), v.c_str());
      return;
    }
    point = v.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    if (b != std::string::npos) nth = std::max(1L, std::strtol(v.c_str() + b + 1, nullptr, 10));
    rank = r;
  }
  // True the Nth time world rank `me` reaches point, when RANK is me.
  bool hit(const char* at, long me) { return rank >= 0 && rank == me && point == at && reached.fetch_add(1) + 1 == nth; }
};

}  // namespace

std::unique_ptr<DatagramFaults> DatagramFaults::from_params() {
  const std::string v = param::NEXAR_FAULT_DATAGRAMS.get();
  if (v.empty()) return nullptr;
  double drop = 0, dup = 0, corrupt = 0, delay = 0;
  uint64_t seed = 1;
  if (!parse_rates(v, &drop, &dup, &corrupt, &delay, &seed)) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      NX_WARN(INIT, "NEXAR_FAULT_DATAGRAMS='%s' is not drop=P,dup=P,corrupt=P,delay=P,seed=N (sum <= 1): ignored", v.c_str());
    });
    return nullptr;
  }
  // Each socket its own stream of the seed, so two endpoints do not fail in lockstep.
  static std::atomic<uint64_t> sockets{0};
  return std::make_unique<DatagramFaults>(drop, dup, corrupt, delay, seed * 0x9e3779b97f4a7c15ull + ++sockets);
}

DatagramFaults::DatagramFaults(double drop, double dup, double corrupt, double delay, uint64_t seed)
    : drop_(drop), dup_(dup), corrupt_(corrupt), delay_(delay), state_(seed | 1) {}

double DatagramFaults::next() {
  state_ ^= state_ << 13;  // xorshift64
  state_ ^= state_ >> 7;
  state_ ^= state_ << 17;
  return static_cast<double>(state_ >> 11) / static_cast<double>(1ull << 53);
}

Datagram DatagramFaults::roll() {
  const double x = next();
  if (x < drop_) return Datagram::DROP;
  if (x < drop_ + dup_) return Datagram::DUPLICATE;
  if (x < drop_ + dup_ + corrupt_) return Datagram::CORRUPT;
  if (x < drop_ + dup_ + corrupt_ + delay_) return Datagram::DELAY;
  return Datagram::KEEP;
}

void DatagramFaults::corrupt(uint8_t* data, size_t len) {
  const size_t at = static_cast<size_t>(next() * static_cast<double>(len));
  data[at < len ? at : len - 1] ^= static_cast<uint8_t>(1 + (state_ & 0x7f));
}

void kill_point(const char* point) {
  static PointSpec* spec = new PointSpec(param::NEXAR_FAULT_KILL);  // never freed: read until exit
  if (!spec->hit(point, param::NEXAR_RANK.get())) return;
  NX_WARN(INIT, "NEXAR_FAULT_KILL: rank %lld kills itself at %s (time %ld)",
          static_cast<long long>(param::NEXAR_RANK.get()), point, spec->nth);
  ::kill(::getpid(), SIGKILL);
}

bool fail_point(const char* point) {
  static PointSpec* spec = new PointSpec(param::NEXAR_FAULT_FAIL);
  if (!spec->hit(point, param::NEXAR_RANK.get())) return false;
  NX_WARN(INIT, "NEXAR_FAULT_FAIL: %s fails here (time %ld)", point, spec->nth);
  return true;
}

void stop_point(const char* point, int rank) {
  static PointSpec* spec = new PointSpec(param::NEXAR_FAULT_STOP);
  if (!spec->hit(point, rank)) return;
  NX_WARN(INIT, "NEXAR_FAULT_STOP: rank %d stops itself at %s (time %ld)", rank, point, spec->nth);
  ::kill(::getpid(), SIGSTOP);
}

}  // namespace nexar::fault
