// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A peer process holding a connection is SIGKILLed (or SIGSTOPped): the survivor's
// on_closed(PEER_LOST) must come within idle_timeout + 1 s.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch.hpp>
#include <chrono>
#include <string>

#include "quic_test_util.h"

using namespace nexar;
using namespace nexar::quic;
using namespace nexar::quic::test;

namespace {

constexpr double kIdle = 1.0;
constexpr double kKeepalive = 0.3;

// The helper process, its stdout on a pipe.
struct Child {
  pid_t pid = -1;
  int out = -1;
  Child(const std::string& cred, const std::string& addr, int rank) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::string idle = std::to_string(kIdle), ka = std::to_string(kKeepalive), r = std::to_string(rank);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execl(QUIC_PEER_HELPER, QUIC_PEER_HELPER, cred.c_str(), addr.c_str(), r.c_str(), idle.c_str(), ka.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    out = fds[0];
  }
  // Reads the child's stdout until it contains what, or timeout.
  bool read_until(const std::string& what, double timeout_s) {
    std::string got;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (got.find(what) == std::string::npos) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[256];
      ssize_t n = ::read(out, buf, sizeof(buf));
      if (n <= 0) return false;
      got.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (out >= 0) ::close(out);
  }
};

}  // namespace

TEST_CASE("peer death is detected within the idle timeout", "[quic]") {
  Job job(2);
  EndpointOptions opt;
  opt.idle_timeout_s = kIdle;
  opt.keepalive_s = kKeepalive;
  Server server(job.rank(0), opt);
  Child child(job.files().rank_files[1], server.ep->local_address(), 0);
  REQUIRE(child.read_until("connected", 10));
  REQUIRE(server.accepted() == 1);
  TestApp* s = server.app(0);
  REQUIRE(s->wait([&] { return s->connected == 1; }, 5));
  CHECK(s->peer.rank == 1);

  double limit = kIdle + 1.0;
  auto t0 = std::chrono::steady_clock::now();
  SECTION("SIGKILL") {
    REQUIRE(::kill(child.pid, SIGKILL) == 0);
    ::waitpid(child.pid, nullptr, 0);
    child.pid = -1;
  }
  SECTION("SIGSTOP (no ICMP: only the idle timeout can tell)") {
    REQUIRE(::kill(child.pid, SIGSTOP) == 0);
  }
  REQUIRE(s->wait([&] { return s->closed; }, limit + 2));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN("peer loss seen after " << secs << " s: " << s->close_status.to_string());
  CHECK(secs <= limit);
  CHECK(s->close_status.code() == NEXAR_ERR_PEER_LOST);
}
