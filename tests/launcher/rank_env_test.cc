// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// OMP_NUM_THREADS in a rank's environment (launcher/rank_env.h), on made-up jobs: no processes.
#include <catch.hpp>
#include <string>
#include <vector>

#include "launcher/rank_env.h"

using nexar::launcher::JobEnvironment;
using nexar::launcher::rank_environment;

namespace {

// Every value env gives name, in order ("NAME=value" -> value).
std::vector<std::string> values_of(const std::vector<std::string>& env, const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& kv : env)
    if (kv.rfind(name + "=", 0) == 0) out.push_back(kv.substr(name.size() + 1));
  return out;
}

JobEnvironment one_host(int n) {
  JobEnvironment job;
  job.world_size = n;
  return job;
}

}  // namespace

TEST_CASE("a host running several ranks gives each OMP_NUM_THREADS=1", "[launcher]") {
  const auto env = rank_environment({"PATH=/usr/bin"}, one_host(4), 2);
  CHECK(values_of(env, "OMP_NUM_THREADS") == std::vector<std::string>{"1"});
  CHECK(values_of(env, "PATH") == std::vector<std::string>{"/usr/bin"});
}

TEST_CASE("an inherited OMP_NUM_THREADS is kept as it is", "[launcher]") {
  const auto env = rank_environment({"OMP_NUM_THREADS=3"}, one_host(4), 0);
  CHECK(values_of(env, "OMP_NUM_THREADS") == std::vector<std::string>{"3"});
  // Set but empty is still the user's choice.
  CHECK(values_of(rank_environment({"OMP_NUM_THREADS="}, one_host(2), 1), "OMP_NUM_THREADS") ==
        std::vector<std::string>{""});
}

TEST_CASE("a rank alone on its host gets no OMP_NUM_THREADS", "[launcher]") {
  CHECK(values_of(rank_environment({}, one_host(1), 0), "OMP_NUM_THREADS").empty());
  // Two hosts, one rank each; then two hosts where rank 1 shares its host.
  JobEnvironment job = one_host(2);
  job.local_rank = {0, 0};
  job.local_size = {1, 1};
  job.node_rank = {0, 1};
  job.num_nodes = 2;
  CHECK(values_of(rank_environment({}, job, 1), "OMP_NUM_THREADS").empty());
  job = one_host(3);
  job.local_rank = {0, 0, 1};
  job.local_size = {1, 2, 2};
  job.node_rank = {0, 1, 1};
  job.num_nodes = 2;
  CHECK(values_of(rank_environment({}, job, 0), "OMP_NUM_THREADS").empty());
  CHECK(values_of(rank_environment({}, job, 2), "OMP_NUM_THREADS") == std::vector<std::string>{"1"});
}
