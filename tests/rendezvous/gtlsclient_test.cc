// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A stock HTTP/3 client against the rendezvous: Debian's gtlsclient (ngtcp2-client)
// with a rank's credential file reads /status and gets the server's validation errors;
// without a certificate it is refused. Skipped when gtlsclient is not installed.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "rdv_fixture.h"

extern char** environ;

using namespace nexar;
using namespace nexar::rdvtest;

namespace {

std::string find_gtlsclient() {
  FILE* p = ::popen("command -v gtlsclient 2>/dev/null", "r");
  if (!p) return "";
  char buf[512] = {0};
  std::string path = fgets(buf, sizeof(buf), p) ? buf : "";
  ::pclose(p);
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path;
}

struct Run {
  int exit_code = -1;  // -1: killed by us after the deadline; -2: could not start it
  std::string body;    // the downloaded response body ("" if none)
  std::string log;     // its stderr + stdout
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs gtlsclient for one request under `timeout` (and our own deadline), saving the
// response body with --download into a fresh directory. No Catch assertions inside: it
// also runs on a helper thread.
Run run_gtlsclient(const std::string& exe, uint16_t port, const std::string& path, const std::string& credential,
                   const std::string& method = "GET", const std::string& body_file = "", int limit_s = 15) {
  Run run;
  char tmpl[] = "/tmp/nexar-rdv-gtls-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    run.exit_code = -2;
    run.log = "mkdtemp failed";
    return run;
  }
  std::string dir = tmpl, dl = dir + "/dl", log = dir + "/log";
  ::mkdir(dl.c_str(), 0700);
  std::string p = std::to_string(port);
  // SIGKILL at the limit: the client vanishes without a CONNECTION_CLOSE.
  std::vector<std::string> args = {"timeout", "-s", "KILL", std::to_string(limit_s), exe, "--quiet", "--exit-on-all-streams-close",
                                   "--timeout=5s", "--download=" + dl, "-m", method};
  if (!credential.empty()) {
    args.push_back("--cert=" + credential);
    args.push_back("--key=" + credential);
  }
  if (!body_file.empty()) args.push_back("--data=" + body_file);
  args.insert(args.end(), {"127.0.0.1", p, "https://127.0.0.1:" + p + path});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, "timeout", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    run.exit_code = -2;
    run.log = std::string("posix_spawnp(timeout): ") + std::strerror(rc);
    ::rmdir(dl.c_str());
    ::rmdir(dir.c_str());
    return run;
  }

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(25);
  int status = 0;
  while (true) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  run.log = slurp(log);
  if (DIR* d = ::opendir(dl.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      run.body += slurp(dl + "/" + name);
      ::unlink((dl + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dl.c_str());
  ::unlink(log.c_str());
  ::rmdir(dir.c_str());
  return run;
}

}  // namespace

TEST_CASE("gtlsclient: a rank's credential reads /status; no certificate is refused") {
  std::string exe = find_gtlsclient();
  if (exe.empty()) {
    WARN("SKIPPED: gtlsclient not found (Debian package ngtcp2-client)");
    return;
  }
  const std::string json = "{\"job\":\"rdvtest\",\"ranks\":3,\"state\":\"running\"}";
  RdvFixture rdv(3, [json] { return json; });

  Run ok = run_gtlsclient(exe, rdv.port(), "/status", rdv.files().rank_files[2]);
  INFO("exit " << ok.exit_code << "\n" << ok.log);
  CHECK(ok.exit_code == 0);
  CHECK(ok.body == json);

  Run refused = run_gtlsclient(exe, rdv.port(), "/status", "");
  INFO("exit " << refused.exit_code << "\n" << refused.log);
  CHECK((refused.exit_code != 0 || refused.body.empty()));
  CHECK(refused.body.find("rdvtest") == std::string::npos);
}

TEST_CASE("gtlsclient: the server's answers to a foreign client, valid and malformed") {
  std::string exe = find_gtlsclient();
  if (exe.empty()) {
    WARN("SKIPPED: gtlsclient not found (Debian package ngtcp2-client)");
    return;
  }
  RdvFixture rdv(2);
  const std::string& cred = rdv.files().rank_files[1];
  std::string data = rdv.files().dir + "/../body";
  {
    std::ofstream out(data, std::ios::binary);
    out << "from-gtlsclient";
  }
  // A PUT by the stock client is seen by our own client.
  Run put = run_gtlsclient(exe, rdv.port(), "/kv/foreign/key", cred, "PUT", data);
  INFO("exit " << put.exit_code << "\n" << put.log);
  CHECK(put.exit_code == 0);
  auto c = rdv.client(0);
  std::string v;
  bool found = false;
  Status st = c->client->get("foreign/key", &v, &found, std::chrono::seconds(5));
  INFO(st.to_string());
  REQUIRE(st.ok());
  CHECK(found);
  CHECK(v == "from-gtlsclient");

  Run get = run_gtlsclient(exe, rdv.port(), "/kv/foreign/key", cred);
  CHECK(get.body == "from-gtlsclient");

  // Malformed requests get a one-line reason, and the server keeps serving.
  struct Bad {
    const char* method;
    const char* path;
    const char* says;
  } bad[] = {{"GET", "/kv/bad%20key", "outside [A-Za-z0-9._/-]"},
             {"DELETE", "/kv/x", "method DELETE not allowed"},
             {"GET", "/nothing", "unknown path"},
             {"GET", "/kv/x?wait=soon", "not a decimal number"},
             {"POST", "/add/ctr", "not a decimal int64"}};
  for (const Bad& b : bad) {
    Run r = run_gtlsclient(exe, rdv.port(), b.path, cred, b.method, std::string(b.method) == "POST" ? data : "");
    INFO(b.method << " " << b.path << " -> exit " << r.exit_code << " body '" << r.body << "'\n" << r.log);
    CHECK(r.body.find(b.says) != std::string::npos);
    CHECK(r.body.find('\n') == r.body.size() - 1);
  }
  CHECK(c->client->set("still", "alive", std::chrono::seconds(5)).ok());
  ::unlink(data.c_str());
}

TEST_CASE("gtlsclient: a client that vanishes during a long poll leaves no waiter behind") {
  std::string exe = find_gtlsclient();
  if (exe.empty()) {
    WARN("SKIPPED: gtlsclient not found (Debian package ngtcp2-client)");
    return;
  }
  RdvFixture rdv(2);  // /status: the server's counters
  auto c = rdv.client(0);
  std::string json;
  Run vanished;
  std::thread foreign([&] {
    // Killed after 1 s, long before its 60 s wait ends: the server learns of it only by
    // the idle timeout (5 s), and must then drop the waiter.
    vanished = run_gtlsclient(exe, rdv.port(), "/kv/never?wait=60000", rdv.files().rank_files[1], "GET", "", 1);
  });
  bool saw_waiter = false;
  for (int i = 0; i < 100 && !saw_waiter; ++i) {
    REQUIRE(c->client->status(&json, std::chrono::seconds(5)).ok());
    saw_waiter = json.find("\"waiters\":1") != std::string::npos;
    if (!saw_waiter) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  foreign.join();
  INFO("gtlsclient exit " << vanished.exit_code << "\n" << vanished.log);
  CHECK(vanished.exit_code == 128 + SIGKILL);  // timeout -s KILL reports 137
  CHECK(vanished.body.empty());
  CHECK(saw_waiter);
  bool cleaned = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!cleaned && std::chrono::steady_clock::now() < deadline) {
    REQUIRE(c->client->status(&json, std::chrono::seconds(5)).ok());
    cleaned = json.find("\"waiters\":0") != std::string::npos && json.find("\"clients\":1") != std::string::npos;
    if (!cleaned) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  INFO(json);
  CHECK(cleaned);
}
