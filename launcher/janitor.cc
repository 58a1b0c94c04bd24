// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/janitor.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "launcher/job_credentials.h"
#include "transport/shm/token.h"

extern char** environ;

namespace nexar::launcher {
namespace {

// Removes the job's /dev/shm names (shm/token.h: job_shm_prefix).
void remove_job_shm_names(const std::string& job_id) {
  const std::string prefix = shm::job_shm_prefix(job_id);
  DIR* d = opendir("/dev/shm");
  if (!d) return;
  while (struct dirent* e = readdir(d))
    if (std::string(e->d_name).rfind(prefix, 0) == 0) unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

}  // namespace

Status Janitor::start(const std::string& nexrun_path, const std::string& dir, const std::string& job_id) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status(NEXAR_ERR_SYSTEM, "cannot create the janitor's pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);  // dup2 clears close-on-exec
  // Nothing of nexrun's output: a reader waiting for the end of nexrun's stdout or stderr
  // (a test, ssh) must not wait for the janitor too.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const char* argv[] = {nexrun_path.c_str(), "--janitor", dir.c_str(), job_id.c_str(), nullptr};
  pid_t pid = -1;
  const int err = posix_spawn(&pid, nexrun_path.c_str(), &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (err != 0) {
    close(fds[1]);
    return Status(NEXAR_ERR_SYSTEM, strprintf("cannot start the janitor (%s --janitor): %s", nexrun_path.c_str(),
                                              std::strerror(err)));
  }
  pid_ = pid;
  pipe_write_ = fds[1];
  return Status::Ok();
}

void Janitor::finish() {
  if (pipe_write_ >= 0) close(pipe_write_);
  pipe_write_ = -1;
  if (pid_ <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (waitpid(pid_, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  pid_ = -1;
}

int janitor_main(const std::string& dir, const std::string& job_id) {
  setsid();  // neither the terminal's signals nor a kill of nexrun's process group reach it
  close_range(3, ~0u, 0);  // descriptors nexrun left inheritable (sockets, pipes) stay nexrun's
  char buf[64];
  for (;;) {
    const ssize_t n = read(0, buf, sizeof(buf));
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  remove_credential_dir(dir);
  remove_job_shm_names(job_id);
  return 0;
}

}  // namespace nexar::launcher
