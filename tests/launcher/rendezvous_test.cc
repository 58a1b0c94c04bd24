// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The job's rendezvous service answers during the job, over HTTP/3 with mutual TLS, to a
// stock client (Debian's gtlsclient) holding a rank's credential, and to no one else.
#include <signal.h>

#include <catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

namespace {

std::string value_of(const std::string& out, int rank, const std::string& name) {
  const std::string key = "env " + std::to_string(rank) + " " + name + "=";
  size_t pos = out.find(key);
  REQUIRE(pos != std::string::npos);
  pos += key.size();
  return out.substr(pos, out.find('\n', pos) - pos);
}

// GET /status with gtlsclient; credential "" sends no client certificate. Returns the body
// ("" when there was none).
std::string get_status(const std::string& rendezvous, const std::string& credential) {
  const std::string port = rendezvous.substr(rendezvous.rfind(':') + 1);
  const std::string dir = make_temp_dir();
  std::vector<std::string> argv = {"gtlsclient", "--quiet", "--exit-on-all-streams-close", "--timeout=3s",
                                   "--handshake-timeout=3s", "--download=" + dir};
  if (!credential.empty()) {
    argv.push_back("--key=" + credential);
    argv.push_back("--cert=" + credential);
  }
  argv.insert(argv.end(), {"127.0.0.1", port, "https://127.0.0.1:" + port + "/status"});
  std::string out, err;
  Ended e = run_program(argv, &out, &err, 10s);
  INFO("gtlsclient stderr: " << err);
  REQUIRE(e.exit_code != 127);  // gtlsclient (Debian package ngtcp2-client) must be installed
  std::ifstream f(dir + "/status");
  std::string body((std::istreambuf_iterator<char>(f)), {});
  remove_tree(dir);
  return body;
}

}  // namespace

TEST_CASE("GET /status with a rank's credential shows the job", "[launcher][rendezvous]") {
  constexpr int N = 3;
  NexrunProcess job({"-np", std::to_string(N), "--no-kill", probe_path(), "env", "6000"});
  REQUIRE(job.wait_for_stdout("ready ", N, 10s));
  const std::string job_id = value_of(job.out(), 0, "NEXAR_JOB_ID");
  const std::string rendezvous = value_of(job.out(), 0, "NEXAR_RENDEZVOUS");
  const std::vector<long> pids = pids_by_rank(job.out(), N);
  for (long pid : pids) REQUIRE(pid > 0);

  const std::string body = get_status(rendezvous, value_of(job.out(), 1, "NEXAR_CREDENTIALS"));
  INFO("status: " << body);
  CHECK(body.find("\"job_id\":\"" + job_id + "\"") != std::string::npos);
  CHECK(body.find("\"world_size\":3") != std::string::npos);
  CHECK(body.find("\"state\":\"running\"") != std::string::npos);
  for (int r = 0; r < N; ++r) {
    // Ranks appear in order with the pids they printed.
    const std::string entry = "{\"rank\":" + std::to_string(r) + ",\"pid\":" + std::to_string(pids[r]) +
                              ",\"state\":\"running\",\"status\":null,\"incarnation\":0,\"current\":null}";
    CHECK(body.find(entry) != std::string::npos);
  }
  job.signal(SIGTERM);
  job.wait(10s);
}

TEST_CASE("GET /status shows a failed rank", "[launcher][rendezvous]") {
  NexrunProcess job({"-np", "2", "--no-kill", probe_path(), "env", "6000", "1", "5"});
  REQUIRE(job.wait_for_stdout("ready ", 2, 10s));
  const std::vector<long> pids = pids_by_rank(job.out(), 2);
  for (long pid : pids) REQUIRE(pid > 0);
  REQUIRE(process_gone(static_cast<pid_t>(pids[1]), 3s));  // rank 1 exits 5 after 200 ms
  // nexrun reaps it and holds an exit status for its cause window (FailureLedger::kCauseWindow,
  // 250 ms) before the job is failed: read the status until it says so, at most 3 s.
  std::string body;
  const auto until = std::chrono::steady_clock::now() + 3s;
  do {
    job.wait_for_stdout("never printed", 1, 50ms);
    body = get_status(value_of(job.out(), 0, "NEXAR_RENDEZVOUS"), value_of(job.out(), 0, "NEXAR_CREDENTIALS"));
  } while (body.find("\"state\":\"failed\"") == std::string::npos && std::chrono::steady_clock::now() < until);
  INFO("status: " << body);
  CHECK(body.find("\"state\":\"failed\"") != std::string::npos);
  CHECK(body.find("{\"rank\":0,\"pid\":" + std::to_string(pids[0]) + ",\"state\":\"running\"") !=
        std::string::npos);
  CHECK(body.find("{\"rank\":1,\"pid\":" + std::to_string(pids[1]) + ",\"state\":\"exited\",\"status\":5,\"incarnation\":0,\"current\":null}") !=
        std::string::npos);
  job.signal(SIGTERM);
  Ended e = job.wait(10s);
  CHECK(e.exit_code == 5);  // --no-kill: the first failure's status
}

TEST_CASE("GET /status shows a replacement's incarnation", "[launcher][rendezvous]") {
  // Rank 1 exits 5 at 200 ms in every incarnation; --respawn 1 starts one replacement.
  NexrunProcess job({"-np", "2", "--respawn", "1", probe_path(), "env", "6000", "1", "5"});
  REQUIRE(job.wait_for_stdout("ready 1 ", 2, 10s));  // the replacement is up
  const std::vector<long> pids = numbers_after(job.out(), "ready 1 pid=");
  REQUIRE(pids.size() == 2);
  REQUIRE(process_gone(static_cast<pid_t>(pids[1]), 3s));  // the replacement fails too
  job.wait_for_stdout("never printed", 1, 200ms);          // nexrun reaps it meanwhile
  const std::string body =
      get_status(value_of(job.out(), 0, "NEXAR_RENDEZVOUS"), value_of(job.out(), 0, "NEXAR_CREDENTIALS"));
  INFO("status: " << body);
  CHECK(body.find("\"restarts\":0,\"replacements\":1") != std::string::npos);
  CHECK(body.find("{\"rank\":1,\"pid\":" + std::to_string(pids[1]) +
                  ",\"state\":\"exited\",\"status\":5,\"incarnation\":1,") != std::string::npos);
  CHECK(body.find("{\"rank\":0,\"pid\":") != std::string::npos);
  job.signal(SIGTERM);
  job.wait(10s);
}

TEST_CASE("the rendezvous refuses clients without a credential of the job", "[launcher][rendezvous]") {
  // Two jobs at once: neither accepts the other's rank credential, nor none at all.
  NexrunProcess a({"-np", "1", probe_path(), "env", "6000"});
  NexrunProcess b({"-np", "1", probe_path(), "env", "6000"});
  REQUIRE(a.wait_for_stdout("ready ", 1, 10s));
  REQUIRE(b.wait_for_stdout("ready ", 1, 10s));
  const std::string rdv_a = value_of(a.out(), 0, "NEXAR_RENDEZVOUS");
  CHECK(get_status(rdv_a, "") == "");
  CHECK(get_status(rdv_a, value_of(b.out(), 0, "NEXAR_CREDENTIALS")) == "");
  // The control: a's own credential works.
  CHECK(get_status(rdv_a, value_of(a.out(), 0, "NEXAR_CREDENTIALS")).find("\"world_size\":1") !=
        std::string::npos);
  a.signal(SIGTERM);
  b.signal(SIGTERM);
  a.wait(10s);
  b.wait(10s);
}
