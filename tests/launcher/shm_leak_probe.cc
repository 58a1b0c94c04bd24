// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A start that fails after the shared-memory inboxes exist (launcher janitor test): every
// rank prints "job <NEXAR_JOB_ID>" and calls nexar_init; the last rank kills itself the
// moment the first inbox of the job appears in /dev/shm (inotify): it never maps the
// others', so their names (and its own, if it made it) stay behind unless nexrun's janitor
// removes them. Bounded: a rank that sees nothing within 20 s exits 4.
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "nexar/nexar.h"

namespace {

// Kills this process as soon as a /dev/shm name starting with prefix is created.
void die_when_created(int fd, const std::string& prefix) {
  alignas(inotify_event) char buf[4096];
  for (int waited_ms = 0; waited_ms < 20000; waited_ms += 10) {
    const ssize_t n = read(fd, buf, sizeof buf);
    for (ssize_t off = 0; n > 0 && off < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
      if (e->len > 0 && std::strncmp(e->name, prefix.c_str(), prefix.size()) == 0) raise(SIGKILL);
      off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
    if (n <= 0) usleep(10000);
  }
  std::_Exit(4);
}

}  // namespace

int main() {
  const char* job = std::getenv("NEXAR_JOB_ID");
  const char* rank = std::getenv("NEXAR_RANK");
  const char* size = std::getenv("NEXAR_WORLD_SIZE");
  if (!job || !rank || !size) return 2;
  std::printf("job %s\n", job);
  std::fflush(stdout);
  if (std::atoi(rank) == std::atoi(size) - 1) {
    const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, "/dev/shm", IN_CREATE) < 0) return 3;
    // "nexar-" + the job id's first 16 digits: whatever length of the id the names carry.
    const std::string prefix = "nexar-" + std::string(job).substr(0, 16);
    std::thread([fd, prefix] { die_when_created(fd, prefix); }).detach();
  }
  nexar_comm_t world = nullptr;
  if (nexar_init(&world) != NEXAR_SUCCESS) return 1;
  std::this_thread::sleep_for(std::chrono::seconds(20));  // the last rank died: nexrun stops us
  nexar_comm_destroy(world);
  return 0;
}
