// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "launcher/signal_events.h"

namespace nexar::launcher {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// After fork, before exec: async-signal-safe calls only (nexrun has other threads).
// A failed binding reports its errno negated (exec's is positive).
[[noreturn]] void exec_child(pid_t launcher, int null_fd, int out_w, int err_w, int report_w, const char* path,
                             char* const* argv, char* const* envp, const cpu_set_t* cpus) {
  setpgid(0, 0);
  if (cpus && sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) {
    int e = -errno;
    (void)!write(report_w, &e, sizeof(e));
    _exit(127);
  }
  // The death signal is armed now; if nexrun died before this point it will never fire.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher) _exit(127);
  if (dup2(null_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) {
    int e = errno;
    (void)!write(report_w, &e, sizeof(e));
    _exit(127);
  }
  SignalEvents::restore_in_child();
  execve(path, argv, envp);
  int e = errno;
  (void)!write(report_w, &e, sizeof(e));
  _exit(127);
}

}  // namespace

Status spawn_rank(const SpawnSpec& spec, SpawnedRank* out, int* exec_errno) {
  *exec_errno = 0;
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, report[2] = {-1, -1}, in_pipe[2] = {-1, -1};
  int null_fd = -1;
  if (spec.stdin_pipe) {
    if (pipe2(in_pipe, O_CLOEXEC) == 0) null_fd = in_pipe[0];
  } else {
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  if (null_fd < 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(report, O_CLOEXEC) != 0) {
    Status s(NEXAR_ERR_SYSTEM, strprintf("creating pipes: %s", std::strerror(errno)));
    for (int* fd : {&null_fd, &out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1], &report[0], &report[1],
                    &in_pipe[1]})
      close_fd(*fd);
    return s;
  }
  std::vector<char*> argv = c_strings(spec.argv);
  std::vector<char*> envp = c_strings(spec.env);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : spec.cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &cpus);
  const pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid == 0)
    exec_child(launcher, null_fd, out_pipe[1], err_pipe[1], report[1], spec.path.c_str(), argv.data(),
               envp.data(), spec.cpus.empty() ? nullptr : &cpus);
  const int fork_errno = errno;
  for (int* fd : {&null_fd, &out_pipe[1], &err_pipe[1], &report[1]}) close_fd(*fd);
  if (pid < 0) {
    for (int* fd : {&out_pipe[0], &err_pipe[0], &report[0], &in_pipe[1]}) close_fd(*fd);
    return Status(NEXAR_ERR_SYSTEM, strprintf("fork: %s", std::strerror(fork_errno)));
  }
  setpgid(pid, pid);  // also here, so the group exists before we ever signal it

  // The report pipe closes on a successful exec, or carries the child's errno.
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(report[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  close_fd(report[0]);
  if (n > 0) {
    waitpid(pid, nullptr, 0);
    close_fd(out_pipe[0]);
    close_fd(err_pipe[0]);
    close_fd(in_pipe[1]);
    if (child_errno < 0) {
      std::string list;
      for (int c : spec.cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
      return Status(NEXAR_ERR_SYSTEM, strprintf("binding '%s' to CPUs %s: %s", spec.path.c_str(), list.c_str(),
                                                std::strerror(-child_errno)));
    }
    *exec_errno = child_errno;
    return Status(NEXAR_ERR_SYSTEM, strprintf("cannot run '%s': %s", spec.path.c_str(), std::strerror(child_errno)));
  }
  fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  out->pid = pid;
  out->out_fd = out_pipe[0];
  out->err_fd = err_pipe[0];
  out->in_fd = in_pipe[1];
  return Status::Ok();
}

}  // namespace nexar::launcher
