#include "launcher/rank_env.h"

#include <map>
#include <set>

extern char** environ;

namespace nexar::launcher {

std::vector<std::string> rank_environment(const std::vector<std::string>& base, const JobEnvironment& job,
                                          int rank) {
  const std::string r = std::to_string(rank);
  const std::string n = std::to_string(job.world_size);
  // One host: local rank = rank, local size = world size.
  const std::map<std::string, std::string> vars = {
      {"NEXAR_RANK", r},
      {"NEXAR_WORLD_SIZE", n},
      {"NEXAR_LOCAL_RANK", r},
      {"NEXAR_LOCAL_SIZE", n},
      {"NEXAR_NODE_RANK", "0"},
      {"NEXAR_NUM_NODES", "1"},
      {"NEXAR_JOB_ID", job.job_id},
      {"NEXAR_RENDEZVOUS", job.rendezvous},
      {"NEXAR_CREDENTIALS", job.credential_files.at(rank)},
      {"RANK", r},
      {"WORLD_SIZE", n},
      {"LOCAL_RANK", r},
      {"LOCAL_WORLD_SIZE", n},
      {"GROUP_RANK", "0"},
      {"MASTER_ADDR", "127.0.0.1"},
      {"MASTER_PORT", std::to_string(job.master_port)},
  };
  std::vector<std::string> env;
  env.reserve(base.size() + vars.size());
  for (const std::string& kv : base) {
    const std::string name = kv.substr(0, kv.find('='));
    if (!vars.count(name)) env.push_back(kv);
  }
  for (const auto& [name, value] : vars) env.push_back(name + "=" + value);
  return env;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

}  // namespace nexar::launcher
