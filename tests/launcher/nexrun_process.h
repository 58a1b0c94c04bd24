// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Runs nexrun (path from $NEXRUN) as a child of a test, with bounded waits everywhere:
// read its output as it comes, signal it, and collect how it ended. A process still
// running when the object dies is killed with SIGKILL (its ranks follow by PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace launcher_test {

using namespace std::chrono_literals;

// The rank program (tests/launcher/rank_probe.c).
std::string probe_path();

struct Ended {
  bool finished = false;  // false: did not end within the wait (then killed)
  int exit_code = -1;     // when it exited
  int signal = 0;         // when killed by a signal
  double seconds = 0;     // from start to end
};

class NexrunProcess {
 public:
  // args: nexrun's arguments (not argv[0]); env: extra "NAME=value" entries.
  NexrunProcess(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
  // Any other program: argv[0] is its path.
  struct Program {};
  NexrunProcess(Program, const std::vector<std::string>& argv, const std::vector<std::string>& env = {});
  ~NexrunProcess();

  pid_t pid() const { return pid_; }
  // Reads output until stdout holds `count` occurrences of needle; false on timeout or EOF.
  bool wait_for_stdout(const std::string& needle, int count, std::chrono::milliseconds timeout);
  void signal(int signo);
  // Reads all output and reaps nexrun; kills it if it has not ended within timeout.
  Ended wait(std::chrono::milliseconds timeout);

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  bool pump(std::chrono::steady_clock::time_point until);  // false when no more output can come

  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
  std::chrono::steady_clock::time_point started_;
  bool reaped_ = false;
};

// Runs nexrun to its end (bounded).
Ended run_nexrun(const std::vector<std::string>& args, std::string* out, std::string* err,
                 std::chrono::milliseconds timeout = 20s, const std::vector<std::string>& env = {});

// Runs any program to its end (bounded), e.g. gtlsclient.
Ended run_program(const std::vector<std::string>& argv, std::string* out, std::string* err,
                  std::chrono::milliseconds timeout = 20s);

// Every occurrence of "<key><integer>" in text, in order (e.g. key "pid=").
std::vector<long> numbers_after(const std::string& text, const std::string& key);
// The same for "<key><decimal>" (e.g. key "after " in "after 1.25 s").
std::vector<double> decimals_after(const std::string& text, const std::string& key);
// The pids of rank_probe's "ready <rank> pid=<pid>" lines, indexed by rank (0 where a rank
// printed none). Output order across ranks is arbitrary, so never index numbers_after.
std::vector<long> pids_by_rank(const std::string& text, int world_size);
size_t count_of(const std::string& text, const std::string& needle);
// True once pid no longer runs (gone or a zombie), polling up to timeout.
bool process_gone(pid_t pid, std::chrono::milliseconds timeout);
// True once pid is stopped by a signal (state T), polling up to timeout.
bool process_stopped(pid_t pid, std::chrono::milliseconds timeout);
// A fresh private directory (for TMPDIR), and whether a directory has nexar-* entries.
std::string make_temp_dir();
std::vector<std::string> nexar_entries(const std::string& dir);
void remove_tree(const std::string& dir);

}  // namespace launcher_test
