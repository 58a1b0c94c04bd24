// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The janitor (`nexrun --janitor DIR JOB_ID`, launcher/janitor.h): it leaves everything
// alone while its pipe is open, and once the pipe ends (nexrun gone, however) removes the
// credential directory and the job's /dev/shm names, and nothing of another job.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch.hpp>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

void touch(const std::string& path) { std::ofstream(path) << "x"; }

}  // namespace

TEST_CASE("the janitor cleans up once its pipe ends, and only the job's names", "[launcher]") {
  const char* nexrun = std::getenv("NEXRUN");
  REQUIRE(nexrun);
  const std::string tmp = make_temp_dir();
  const std::string job = "0123456789abcdef0123456789abcdef";
  const std::string dir = tmp + "/nexar-" + job;
  REQUIRE(mkdir(dir.c_str(), 0700) == 0);
  touch(dir + "/rank-0.pem");
  const std::string mine = "/dev/shm/nexar-" + job + "-r0-cafe", other = "/dev/shm/nexar-ffff" + job.substr(4) + "-r0-cafe";
  touch(mine);
  touch(other);

  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    execl(nexrun, nexrun, "--janitor", dir.c_str(), job.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  // Alive and idle while the pipe is open.
  std::this_thread::sleep_for(300ms);
  CHECK(waitpid(pid, nullptr, WNOHANG) == 0);
  CHECK(exists(dir + "/rank-0.pem"));
  CHECK(exists(mine));

  close(fds[1]);  // as when nexrun dies
  int status = -1;
  const auto until = std::chrono::steady_clock::now() + 5s;
  pid_t r = 0;
  while ((r = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  if (r == 0) kill(pid, SIGKILL), waitpid(pid, &status, 0);
  REQUIRE(r == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(exists(dir));
  CHECK_FALSE(exists(mine));
  CHECK(exists(other));  // another job's name stays
  unlink(other.c_str());
  remove_tree(tmp);
}

TEST_CASE("a start that fails after the inboxes exist leaves nothing in /dev/shm", "[launcher]") {
  // Issue 19: the janitor matched 32 digits of the job id, the names carried 16.
  std::string out, err;
  const Ended e = run_nexrun({"-np", "3", SHM_LEAK_PROBE}, &out, &err, 60s, {"NEXAR_TIMEOUT=30"});
  INFO("stdout:\n" << out << "\nstderr:\n" << err);
  REQUIRE(e.finished);
  CHECK(e.exit_code != 0);
  const size_t at = out.find("job ");
  REQUIRE(at != std::string::npos);
  const std::string prefix = "nexar-" + out.substr(at + 4, 16);
  auto leftovers = [&] {
    std::vector<std::string> names;
    for (const std::string& n : nexar_entries("/dev/shm"))
      if (n.rfind(prefix, 0) == 0) names.push_back(n);
    return names;
  };
  // nexrun has ended; its janitor runs once nexrun's pipe is closed.
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!leftovers().empty() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  const std::vector<std::string> left = leftovers();
  for (const std::string& n : left) unlink(("/dev/shm/" + n).c_str());
  CHECK(left.empty());
}
