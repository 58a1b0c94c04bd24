// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Runs a job of uid_probe processes without nexrun: members[0] makes the id and writes it
// to a file in a private directory, the others read it; each process is started by the
// test (optionally inside a namespace host) and every wait is bounded.
#pragma once

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "launcher/nexrun_process.h"

namespace uid_test {

using launcher_test::Ended;
using launcher_test::NexrunProcess;
using namespace std::chrono_literals;

struct Member {
  int rank, size;
  std::string id_file;  // empty: the job's own id file
  std::string host;     // empty: this host; else a namespace host of tests/multihost
};

struct Result {
  std::vector<Ended> ended;
  std::string out, err;  // every process's stdout, stderr (the library's log)
};

class Job {
 public:
  // loopback: every process binds 127.0.0.1 (NEXAR_ADDR); else they choose themselves.
  explicit Job(std::vector<std::string> env = {}, bool loopback = true)
      : dir_(launcher_test::make_temp_dir()), env_(std::move(env)) {
    if (loopback) env_.push_back("NEXAR_ADDR=127.0.0.1");
  }
  ~Job() { launcher_test::remove_tree(dir_); }
  const std::string& dir() const { return dir_; }
  std::string id_file() const { return dir_ + "/id"; }

  // Starts members[0] as the maker of the id, then the others.
  void start(const std::vector<Member>& members, const std::string& scenario) {
    for (size_t i = 0; i < members.size(); ++i) add(members[i], scenario, i == 0);
  }
  // Starts one more process (the maker when make), with extra "NAME=value" entries in its
  // environment; returns its index (for pid()).
  size_t add(const Member& m, const std::string& scenario, bool make = false, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv;
    if (!m.host.empty()) argv = {"nsenter", "--net=/var/run/netns/" + m.host};
    for (const std::string& a : {std::string(UID_PROBE), m.id_file.empty() ? id_file() : m.id_file,
                                 std::to_string(m.rank), std::to_string(m.size), scenario})
      argv.push_back(a);
    if (make) argv.push_back("--make");
    std::vector<std::string> all = env_;
    all.insert(all.end(), env.begin(), env.end());
    procs_.push_back(std::make_unique<NexrunProcess>(NexrunProcess::Program{}, argv, all));
    return procs_.size() - 1;
  }
  NexrunProcess& process(size_t index) { return *procs_.at(index); }
  // Waits for the maker's id file (bounded).
  bool wait_id(std::string* bytes) {
    for (int i = 0; i < 2000; ++i) {
      std::ifstream f(id_file(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      if (ss.str().size() == 512) {
        *bytes = ss.str();
        return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  Result wait(std::chrono::milliseconds timeout = 60s) {
    Result r;
    for (auto& p : procs_) {
      r.ended.push_back(p->wait(timeout));
      r.out += p->out();
      r.err += p->err();
    }
    return r;
  }

 private:
  std::string dir_;
  std::vector<std::string> env_;
  std::vector<std::unique_ptr<NexrunProcess>> procs_;
};

inline Result run(const std::vector<Member>& members, const std::string& scenario, std::vector<std::string> env = {},
                  bool loopback = true) {
  Job job(std::move(env), loopback);
  job.start(members, scenario);
  return job.wait();
}

}  // namespace uid_test
