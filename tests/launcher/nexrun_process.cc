// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/nexrun_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace launcher_test {

using Clock = std::chrono::steady_clock;

std::string probe_path() { return LAUNCHER_RANK_PROBE; }

namespace {

std::vector<std::string> nexrun_argv(const std::vector<std::string>& args) {
  const char* nexrun = std::getenv("NEXRUN");
  if (!nexrun) throw std::runtime_error("NEXRUN is not set (run the test through ctest)");
  std::vector<std::string> argv = {nexrun};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

NexrunProcess::NexrunProcess(const std::vector<std::string>& args, const std::vector<std::string>& env)
    : NexrunProcess(Program{}, nexrun_argv(args), env) {}

NexrunProcess::NexrunProcess(Program, const std::vector<std::string>& argv_s, const std::vector<std::string>& env) {
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> argv, envp;
  for (auto& s : argv_s) argv.push_back(const_cast<char*>(s.c_str()));
  for (auto& s : env_s) envp.push_back(s.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  started_ = Clock::now();
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    // The test's own mask or ignored signals must not leak into nexrun.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvpe(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

NexrunProcess::~NexrunProcess() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool NexrunProcess::pump(Clock::time_point until) {
  pollfd fds[2];
  nfds_t n = 0;
  int* owners[2];
  std::string* bufs[2];
  if (out_fd_ >= 0) fds[n] = {out_fd_, POLLIN, 0}, owners[n] = &out_fd_, bufs[n++] = &out_;
  if (err_fd_ >= 0) fds[n] = {err_fd_, POLLIN, 0}, owners[n] = &err_fd_, bufs[n++] = &err_;
  if (n == 0) return false;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  if (left < 0) left = 0;
  int r = poll(fds, n, static_cast<int>(left));
  for (nfds_t i = 0; r > 0 && i < n; ++i) {
    if (!fds[i].revents) continue;
    char buf[4096];
    ssize_t got = read(fds[i].fd, buf, sizeof(buf));
    if (got > 0) {
      bufs[i]->append(buf, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      close(*owners[i]);
      *owners[i] = -1;
    }
  }
  return true;
}

bool NexrunProcess::wait_for_stdout(const std::string& needle, int count, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  while (count_of(out_, needle) < static_cast<size_t>(count)) {
    if (Clock::now() >= until || !pump(until)) return false;
  }
  return true;
}

void NexrunProcess::signal(int signo) {
  if (!reaped_) kill(pid_, signo);
}

Ended NexrunProcess::wait(std::chrono::milliseconds timeout) {
  Ended e;
  const auto until = Clock::now() + timeout;
  while (Clock::now() < until && pump(until)) {
  }
  int st = 0;
  while (!reaped_) {
    pid_t p = waitpid(pid_, &st, WNOHANG);
    if (p == pid_) {
      reaped_ = true;
      e.finished = true;
      break;
    }
    if (Clock::now() >= until) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &st, 0);
      reaped_ = true;
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  e.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  if (WIFEXITED(st)) e.exit_code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) e.signal = WTERMSIG(st);
  return e;
}

Ended run_nexrun(const std::vector<std::string>& args, std::string* out, std::string* err,
                 std::chrono::milliseconds timeout, const std::vector<std::string>& env) {
  NexrunProcess p(args, env);
  Ended e = p.wait(timeout);
  if (out) *out = p.out();
  if (err) *err = p.err();
  return e;
}

Ended run_program(const std::vector<std::string>& argv, std::string* out, std::string* err,
                  std::chrono::milliseconds timeout) {
  NexrunProcess p(NexrunProcess::Program{}, argv);
  Ended e = p.wait(timeout);
  if (out) *out = p.out();
  if (err) *err = p.err();
  return e;
}

std::vector<long> numbers_after(const std::string& text, const std::string& key) {
  std::vector<long> out;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1))
    out.push_back(std::strtol(text.c_str() + pos + key.size(), nullptr, 10));
  return out;
}

std::vector<double> decimals_after(const std::string& text, const std::string& key) {
  std::vector<double> out;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1))
    out.push_back(std::strtod(text.c_str() + pos + key.size(), nullptr));
  return out;
}

std::vector<long> pids_by_rank(const std::string& text, int world_size) {
  std::vector<long> pids(static_cast<size_t>(world_size), 0);
  const std::string key = "ready ";
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1)) {
    char* end = nullptr;
    const long rank = std::strtol(text.c_str() + pos + key.size(), &end, 10);
    if (rank < 0 || rank >= world_size || std::strncmp(end, " pid=", 5) != 0) continue;
    pids[static_cast<size_t>(rank)] = std::strtol(end + 5, nullptr, 10);
  }
  return pids;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

namespace {

// The state letter of /proc/<pid>/stat ('R', 'S', 'T', 'Z', ...); 'X' when pid is gone.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return 'X';
  // "pid (comm) S ...": the state follows the last ')'.
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() ? line[paren + 2] : '?';
}

// Polls pid's state until pred holds (true) or timeout passes (false).
template <typename Pred>
bool state_within(pid_t pid, std::chrono::milliseconds timeout, Pred pred) {
  const auto until = Clock::now() + timeout;
  for (;;) {
    if (pred(process_state(pid))) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace

bool process_gone(pid_t pid, std::chrono::milliseconds timeout) {
  return state_within(pid, timeout, [](char s) { return s == 'Z' || s == 'X'; });
}

bool process_stopped(pid_t pid, std::chrono::milliseconds timeout) {
  return state_within(pid, timeout, [](char s) { return s == 'T'; });
}

std::string make_temp_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/launcher-test-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

std::vector<std::string> nexar_entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, "nexar-", 6) == 0) out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

void remove_tree(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string path = dir + "/" + name;
      if (e->d_type == DT_DIR) remove_tree(path);
      else unlink(path.c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

}  // namespace launcher_test
