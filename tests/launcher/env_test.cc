// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The environment of every rank (API.md's table) and how credentials reach ranks.
#include <sys/stat.h>
#include <unistd.h>

#include <catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

// "env <rank> NAME=value" lines -> per rank map.
std::map<int, std::map<std::string, std::string>> parse_env(const std::string& out) {
  std::map<int, std::map<std::string, std::string>> env;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("env ", 0) != 0) continue;
    int rank = std::stoi(line.substr(4));
    std::string kv = line.substr(line.find(' ', 4) + 1);
    env[rank][kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  }
  return env;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

TEST_CASE("every rank gets the job environment of API.md", "[launcher]") {
  const std::string tmp = make_temp_dir();
  constexpr int N = 4;
  NexrunProcess job({"-np", std::to_string(N), probe_path(), "env", "3000"}, {"TMPDIR=" + tmp, "RANK=99"});
  REQUIRE(job.wait_for_stdout("ready ", N, 10s));
  auto env = parse_env(job.out());
  REQUIRE(env.size() == N);
  const std::string job_id = env[0]["NEXAR_JOB_ID"];
  CHECK(job_id.size() == 32);
  CHECK(job_id.find_first_not_of("0123456789abcdef") == std::string::npos);
  const std::string port = env[0]["MASTER_PORT"];
  CHECK(std::stoi(port) > 0);
  CHECK(std::stoi(port) < 65536);
  for (int r = 0; r < N; ++r) {
    auto& e = env[r];
    const std::string rs = std::to_string(r), ns = std::to_string(N);
    CHECK(e["NEXAR_RANK"] == rs);
    CHECK(e["NEXAR_WORLD_SIZE"] == ns);
    CHECK(e["NEXAR_LOCAL_RANK"] == rs);
    CHECK(e["NEXAR_LOCAL_SIZE"] == ns);
    CHECK(e["NEXAR_NODE_RANK"] == "0");
    CHECK(e["NEXAR_NUM_NODES"] == "1");
    CHECK(e["NEXAR_JOB_ID"] == job_id);
    CHECK(e["NEXAR_RENDEZVOUS"].rfind("127.0.0.1:", 0) == 0);
    CHECK(e["NEXAR_RENDEZVOUS"] == env[0]["NEXAR_RENDEZVOUS"]);
    CHECK(e["RANK"] == rs);  // replaces the inherited RANK=99
    CHECK(e["WORLD_SIZE"] == ns);
    CHECK(e["LOCAL_RANK"] == rs);
    CHECK(e["LOCAL_WORLD_SIZE"] == ns);
    CHECK(e["GROUP_RANK"] == "0");
    CHECK(e["MASTER_ADDR"] == "127.0.0.1");
    CHECK(e["MASTER_PORT"] == port);
    CHECK(e["NEXAR_RESTART_COUNT"] == "0");  // the first process of every rank
    CHECK(e["TORCHELASTIC_RESTART_COUNT"] == "0");
    // Four ranks on this host: 1 unless the test's own environment sets it (torchrun's rule).
    CHECK(e["OMP_NUM_THREADS"] == (std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "1"));

    // The credential: rank-<r>.pem, mode 0600, ours, in a 0700 directory under TMPDIR.
    const std::string cred = e["NEXAR_CREDENTIALS"];
    CHECK(cred == dir_of(cred) + "/rank-" + rs + ".pem");
    CHECK(dir_of(dir_of(cred)) == tmp);
    struct stat st;
    REQUIRE(stat(cred.c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK((st.st_mode & 07777) == 0600);
    CHECK(st.st_uid == geteuid());
    REQUIRE(stat(dir_of(cred).c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
  }
  // Two ranks never share a credential file.
  CHECK(env[0]["NEXAR_CREDENTIALS"] != env[1]["NEXAR_CREDENTIALS"]);

  {  // no secret on any command line
    const std::string secret = read_file(env[0]["NEXAR_CREDENTIALS"]);
    REQUIRE(secret.size() > 0);
    std::vector<long> pids = numbers_after(job.out(), "pid=");
    REQUIRE(pids.size() == N);
    pids.push_back(job.pid());
    for (long pid : pids) {
      const std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
      REQUIRE(!cmdline.empty());
      CHECK(cmdline.find("PRIVATE KEY") == std::string::npos);
      CHECK(cmdline.find("CERTIFICATE") == std::string::npos);
      // No line of any credential file (PEM body lines are the secret material).
      for (int r = 0; r < N; ++r) {
        std::istringstream lines(read_file(env[r]["NEXAR_CREDENTIALS"]));
        std::string line;
        while (std::getline(lines, line))
          if (line.size() >= 16) CHECK(cmdline.find(line) == std::string::npos);
      }
    }
  }

  Ended end = job.wait(10s);
  CHECK(end.finished);
  CHECK(end.exit_code == 0);
  CHECK(nexar_entries(tmp).empty());  // the credential directory is gone
  remove_tree(tmp);
}

TEST_CASE("each job has its own id, credentials and port", "[launcher]") {
  std::string out1, out2;
  REQUIRE(run_nexrun({"-np", "1", probe_path(), "env"}, &out1, nullptr).exit_code == 0);
  REQUIRE(run_nexrun({"-np", "1", probe_path(), "env"}, &out2, nullptr).exit_code == 0);
  auto e1 = parse_env(out1)[0], e2 = parse_env(out2)[0];
  CHECK(e1["NEXAR_JOB_ID"] != e2["NEXAR_JOB_ID"]);
  CHECK(e1["NEXAR_CREDENTIALS"] != e2["NEXAR_CREDENTIALS"]);
}

TEST_CASE("the credential directory is removed after a failed job", "[launcher]") {
  const std::string tmp = make_temp_dir();
  Ended e = run_nexrun({"-np", "3", probe_path(), "exit", "1", "7"}, nullptr, nullptr, 10s, {"TMPDIR=" + tmp});
  CHECK(e.exit_code == 7);
  CHECK(nexar_entries(tmp).empty());
  e = run_nexrun({"-np", "2", "--timeout", "0.3", probe_path(), "sleep", "20000"}, nullptr, nullptr, 10s,
                 {"TMPDIR=" + tmp});
  CHECK(e.exit_code == 124);
  CHECK(nexar_entries(tmp).empty());
  remove_tree(tmp);
}
