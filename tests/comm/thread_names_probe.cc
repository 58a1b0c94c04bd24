// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for thread_names_test.cc: names its main thread "app-main" before it
// starts libnexar (a thread inherits its creator's name), starts libnexar's threads, and
// checks that every thread started since is named "nexar-..." and that the expected ones
// are there.
//   thread_names_probe world <names>   under nexrun (2 ranks): a non-blocking allreduce
//                                      (the collective worker) and an RPC each way
//   thread_names_probe uid <names>     alone: a unique id (this process serves its
//                                      rendezvous) and nexar_init_rank as rank 0 of 1
// <names>: comma-separated thread names that must exist. Prints "thread_names ok" or
// exits 1 listing every thread's name.
#include <dirent.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "integration/probe_util.h"

namespace {

nexar_result_t echo(void*, int, const void* args, size_t bytes, nexar_rpc_reply_t reply) {
  return nexar_rpc_reply_set(reply, args, bytes);
}

// The process's threads' ids.
std::set<std::string> thread_ids() {
  std::set<std::string> ids;
  DIR* d = opendir("/proc/self/task");
  PROBE_CHECK(d != nullptr);
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ids.insert(e->d_name);
  closedir(d);
  return ids;
}

// Each thread not in before, "tid name", and whether all are as wanted.
bool threads_named(const std::set<std::string>& before, const std::set<std::string>& want, std::string* listing) {
  std::set<std::string> seen;
  bool foreign = false;
  listing->clear();
  for (const std::string& tid : thread_ids()) {
    if (before.count(tid)) continue;
    std::string name;
    std::getline(std::ifstream("/proc/self/task/" + tid + "/comm"), name);
    if (name.empty()) continue;  // the thread ended meanwhile
    *listing += " " + tid + ":" + name;
    seen.insert(name);
    if (name.rfind("nexar-", 0) != 0) foreign = true;
  }
  for (const std::string& w : want)
    if (!seen.count(w)) return false;
  return !foreign;
}

}  // namespace

int main(int argc, char** argv) {
  PROBE_CHECK(argc == 3);
  const std::string scenario = argv[1];
  std::set<std::string> want;
  std::istringstream names(argv[2]);
  for (std::string n; std::getline(names, n, ',');) want.insert(n);
  // A sanitizer's runtime starts its own thread with the process's first one: started and
  // joined here, before libnexar, so that the threads existing now are passed over below.
  std::thread([] {}).join();
  const std::set<std::string> before = thread_ids();
  ::prctl(PR_SET_NAME, "app-main", 0, 0, 0);

  nexar_comm_t w = nullptr;
  if (scenario == "world") {
    PROBE_OK(nexar_init(&w));
  } else {
    PROBE_CHECK(scenario == "uid");
    nexar_unique_id_t id;
    PROBE_OK(nexar_get_unique_id(&id));
    PROBE_OK(nexar_init_rank(&id, 0, 1, &w));
  }
  probe::g_world = w;
  PROBE_OK(nexar_comm_rank(w, &probe::g_rank));
  int size = 0;
  PROBE_OK(nexar_comm_size(w, &size));
  PROBE_OK(nexar_rpc_register(w, 7, echo, nullptr));
  int32_t one = 1, sum = 0;
  nexar_request_t req;
  PROBE_OK(nexar_iallreduce(&one, &sum, 1, NEXAR_INT32, NEXAR_SUM, w, &req));
  PROBE_OK(nexar_wait(req));
  PROBE_CHECK(sum == size);
  PROBE_OK(nexar_barrier(w));  // every rank registered its function
  char reply[4];
  size_t got = 0;
  PROBE_OK(nexar_rpc_call(w, (probe::g_rank + 1) % size, 7, "hi", 2, reply, sizeof reply, &got));
  PROBE_CHECK(got == 2);
  PROBE_OK(nexar_barrier(w));  // every rank served a call: each has its RPC thread

  // A thread names itself once it runs, a progress thread once it serves the task its
  // creator posted: a few seconds of polling cover a loaded machine.
  std::string listing;
  bool ok = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (!(ok = threads_named(before, want, &listing)) && probe::seconds_since(t0) < 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!ok) {
    std::fprintf(stderr, "rank %d: want every thread named nexar-... and %s among them; threads:%s\n", probe::g_rank,
                 argv[2], listing.c_str());
    return 1;
  }
  PROBE_OK(nexar_barrier(w));
  PROBE_OK(nexar_comm_destroy(w));
  std::printf("thread_names ok rank %d\n", probe::g_rank);
  return 0;
}
