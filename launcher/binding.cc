// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/binding.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <utility>

namespace nexar::launcher {
namespace {

int read_int(const std::string& path, int fallback) {
  std::ifstream f(path);
  int v = fallback;
  if (!(f >> v)) return fallback;
  return v;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

std::vector<int> cpus_of_socket(const Topology& t, size_t s) {
  std::vector<int> cpus;
  for (int c : t.sockets[s]) cpus.insert(cpus.end(), t.cores[static_cast<size_t>(c)].begin(), t.cores[static_cast<size_t>(c)].end());
  return cpus;
}

}  // namespace

Status parse_bind_to(const std::string& text, BindTo* out) {
  if (text.empty()) *out = BindTo::DEFAULT;
  else if (text == "none") *out = BindTo::NONE;
  else if (text == "core") *out = BindTo::CORE;
  else if (text == "socket") *out = BindTo::SOCKET;
  else return Status(NEXAR_ERR_INVALID_ARGUMENT, "--bind-to " + text + ": not none, core or socket");
  return Status::Ok();
}

const char* bind_to_name(BindTo b) {
  switch (b) {
    case BindTo::NONE: return "none";
    case BindTo::CORE: return "core";
    case BindTo::SOCKET: return "socket";
    default: return "default";
  }
}

Topology this_host() {
  Topology t;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) CPU_ZERO(&mask);
  std::map<std::pair<int, int>, size_t> core_at;  // (socket, core id) -> index in t.cores
  std::map<int, size_t> socket_at;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const int socket = read_int(dir + "physical_package_id", -1 - cpu);
    const int core = read_int(dir + "core_id", -1 - cpu);
    auto [it, fresh] = core_at.emplace(std::make_pair(socket, core), t.cores.size());
    if (fresh) {
      t.cores.emplace_back();
      auto [s, new_socket] = socket_at.emplace(socket, t.sockets.size());
      if (new_socket) t.sockets.emplace_back();
      t.sockets[s->second].push_back(static_cast<int>(it->second));
    }
    t.cores[it->second].push_back(cpu);
  }
  return t;
}

Status plan_bindings(BindTo policy, int n, const Topology& t, std::vector<RankBinding>* out) {
  out->assign(static_cast<size_t>(n), RankBinding{{}, "nothing"});
  const int ncores = static_cast<int>(t.cores.size());
  if (ncores == 0) return Status::Ok();  // the topology is unknown: leave the ranks alone
  if (policy == BindTo::DEFAULT) policy = n > ncores ? BindTo::NONE : n <= 2 ? BindTo::CORE : BindTo::SOCKET;
  if (policy == BindTo::NONE) return Status::Ok();
  if (policy == BindTo::CORE && n > ncores)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("--bind-to core: %d ranks on this host but nexrun may use %d cores (use --bind-to none "
                            "or socket)", n, ncores));
  for (int r = 0; r < n; ++r) {
    RankBinding& b = (*out)[static_cast<size_t>(r)];
    if (policy == BindTo::CORE) {
      b.cpus = t.cores[static_cast<size_t>(r)];
      b.what = "core " + std::to_string(r);
    } else {
      const size_t s = static_cast<size_t>(r) % t.sockets.size();
      b.cpus = cpus_of_socket(t, s);
      b.what = "socket " + std::to_string(s);
    }
  }
  return Status::Ok();
}

std::string describe_binding(int rank, const RankBinding& b, const Topology& t) {
  if (b.cpus.empty()) {
    std::vector<int> all;
    for (const auto& c : t.cores) all.insert(all.end(), c.begin(), c.end());
    std::sort(all.begin(), all.end());
    return strprintf("rank %d not bound (CPUs %s)", rank, cpu_list(all).c_str());
  }
  return strprintf("rank %d bound to %s (CPUs %s)", rank, b.what.c_str(), cpu_list(b.cpus).c_str());
}

}  // namespace nexar::launcher
