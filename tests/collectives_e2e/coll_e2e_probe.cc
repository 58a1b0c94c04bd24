// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// coll_e2e_probe: the rank program of the end-to-end collective tests, run under nexrun.
//   nexrun -np P coll_e2e_probe SCENARIO[,SCENARIO...]
// Scenarios: sweep, dtypes, identical, large, reduce_sizes, nonblocking, invalid, algo_error, one_rank, passed_call, bitwise,
// mismatch:{count,dtype,op,root,root_reduce,root_gather,root_scatter,count_scan,
// count_bucketed,count_empty,destroy,kind,order}. Each checks its results against references
// computed locally (e2e_reference.h) and prints "rank R: NAME ok (S s)"; any failure
// prints what differed and exits 1.
#include <chrono>
#include <sstream>
#include <vector>

#include "e2e_probe.h"

namespace e2e {

void fail_at(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "rank %d: FAILED at %s:%d: %s (last error: %s)\n", g_rank, file, line, what.c_str(),
               nexar_comm_last_error(g_world));
  std::fflush(stderr);
  std::exit(1);
}

void run_checked(const Case& c, bool nonblocking) {
  Prepared prep(c, g_rank, g_size);
  nexar_request_t req = nullptr;
  const nexar_result_t r = prep.start(g_world, nonblocking ? &req : nullptr);
  E2E_CHECK(r == NEXAR_SUCCESS, c.label() + " returned " + nexar_result_string(r));
  if (nonblocking) {
    const nexar_result_t w = nexar_wait(req);
    E2E_CHECK(w == NEXAR_SUCCESS, c.label() + " wait returned " + nexar_result_string(w));
  }
  const std::string err = prep.verify();
  E2E_CHECK(err.empty(), err);
}

bool same_on_all_ranks(uint64_t value) {
  std::vector<uint64_t> all(static_cast<size_t>(g_size));
  E2E_OK(nexar_allgather(&value, all.data(), 1, NEXAR_UINT64, g_world));
  for (uint64_t v : all)
    if (v != value) return false;
  return true;
}

}  // namespace e2e

int main(int argc, char** argv) {
  using namespace e2e;
  if (argc != 2) {
    std::fprintf(stderr, "usage: coll_e2e_probe SCENARIO[,SCENARIO...]\n");
    return 2;
  }
  E2E_OK(nexar_init(&g_world));
  E2E_OK(nexar_comm_rank(g_world, &g_rank));
  E2E_OK(nexar_comm_size(g_world, &g_size));
  std::stringstream list(argv[1]);
  std::string name;
  while (std::getline(list, name, ',')) {
    const auto t0 = std::chrono::steady_clock::now();
    if (name == "sweep") scenario_sweep();
    else if (name == "dtypes") scenario_dtypes();
    else if (name == "identical") scenario_identical();
    else if (name == "large") scenario_large();
    else if (name == "reduce_sizes") scenario_reduce_sizes();
    else if (name == "nonblocking") scenario_nonblocking();
    else if (name == "invalid") scenario_invalid();
    else if (name == "algo_error") scenario_algo_error();
    else if (name == "one_rank") scenario_one_rank();
    else if (name == "passed_call") scenario_passed_call();
    else if (name == "bitwise") scenario_bitwise();
    else if (name.rfind("mismatch:", 0) == 0) scenario_mismatch(name.substr(9));  // ends the program
    else {
      std::fprintf(stderr, "coll_e2e_probe: unknown scenario '%s'\n", name.c_str());
      return 2;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rank %d: %s ok (%.2f s)\n", g_rank, name.c_str(), s);
    std::fflush(stdout);
  }
  E2E_OK(nexar_comm_destroy(g_world));
  return 0;
}
