// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for the security tests: forms the job, reports where its rendezvous and
// credential are, waits (bounded) for the test to finish its attacks, then checks that only
// the messages its peers really sent arrive, and that the job still works.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;

int main() {
  PROBE_OK(nexar_init(&g_world));
  int size;
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &size));
  PROBE_OK(nexar_barrier(g_world));
  std::printf("ready rank=%d rdv=%s cred=%s\n", g_rank, std::getenv("NEXAR_RENDEZVOUS"), std::getenv("NEXAR_CREDENTIALS"));
  std::fflush(stdout);
  const char* go = std::getenv("SECURITY_GO_FILE");
  PROBE_CHECK(go != nullptr);
  struct stat st;
  for (int i = 0; i < 6000 && stat(go, &st) != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  PROBE_CHECK(stat(go, &st) == 0);
  // Each rank sends its rank to the next; any message injected by an attacker would be
  // taken by the ANY_SOURCE / ANY_TAG receive and fail the check.
  int64_t out = 1000 + g_rank, in = -1;
  nexar_request_t r;
  PROBE_OK(nexar_irecv(&in, 1, NEXAR_INT64, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, g_world, &r));
  PROBE_OK(nexar_send(&out, 1, NEXAR_INT64, (g_rank + 1) % size, 4, g_world));
  PROBE_OK(nexar_wait(r));
  PROBE_CHECK(in == 1000 + (g_rank + size - 1) % size);
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: job ok\n", g_rank);
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
