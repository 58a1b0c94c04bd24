// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/rank_env.h"

#include <map>
#include <set>

extern char** environ;

namespace nexar::launcher {

std::vector<std::string> rank_environment(const std::vector<std::string>& base, const JobEnvironment& job,
                                          int rank) {
  const std::string r = std::to_string(rank);
  const std::string n = std::to_string(job.world_size);
  const size_t i = static_cast<size_t>(rank);
  const bool placed = i < job.local_rank.size();  // else one host: local rank = rank
  const std::string lr = placed ? std::to_string(job.local_rank[i]) : r;
  const std::string ls = placed ? std::to_string(job.local_size[i]) : n;
  const std::string node = placed ? std::to_string(job.node_rank[i]) : "0";
  const std::map<std::string, std::string> vars = {
      {"NEXAR_RANK", r},
      {"NEXAR_WORLD_SIZE", n},
      {"NEXAR_LOCAL_RANK", lr},
      {"NEXAR_LOCAL_SIZE", ls},
      {"NEXAR_NODE_RANK", node},
      {"NEXAR_NUM_NODES", std::to_string(job.num_nodes)},
      {"NEXAR_JOB_ID", job.job_id},
      {"NEXAR_RENDEZVOUS", job.rendezvous},
      {"NEXAR_CREDENTIALS", i < job.credential_files.size() ? job.credential_files[i] : ""},
      {"RANK", r},
      {"WORLD_SIZE", n},
      {"LOCAL_RANK", lr},
      {"LOCAL_WORLD_SIZE", ls},
      {"GROUP_RANK", node},
      {"MASTER_ADDR", job.master_addr},
      {"MASTER_PORT", std::to_string(job.master_port)},
      {"NEXAR_RESTART_COUNT", std::to_string(job.restart_count)},
      {"TORCHELASTIC_RESTART_COUNT", std::to_string(job.restart_count)},
  };
  std::vector<std::string> env;
  env.reserve(base.size() + vars.size() + 1);
  bool omp_set = false;
  for (const std::string& kv : base) {
    const std::string name = kv.substr(0, kv.find('='));
    if (!vars.count(name)) env.push_back(kv);
    omp_set = omp_set || name == kOmpThreads;
  }
  for (const auto& [name, value] : vars) env.push_back(name + "=" + value);
  // As torchrun does: each OpenMP runtime (torch, OpenBLAS) otherwise starts a thread per
  // CPU in every rank, ls times too many for the host's cores. A value the user set stays.
  if (!omp_set && ls != "1") env.push_back(std::string(kOmpThreads) + "=1");
  return env;
}

void set_restart_count(std::vector<std::string>* env, int k) {
  static const std::set<std::string> names = {"NEXAR_RESTART_COUNT", "TORCHELASTIC_RESTART_COUNT"};
  std::vector<std::string> out;
  for (std::string& kv : *env)
    if (!names.count(kv.substr(0, kv.find('=')))) out.push_back(std::move(kv));
  for (const std::string& name : names) out.push_back(name + "=" + std::to_string(k));
  *env = std::move(out);
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

}  // namespace nexar::launcher
