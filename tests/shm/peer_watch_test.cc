// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The peer watch (transport/shm/peer_watch.h) against real child processes: an exit is
// reported at once, a heartbeat that stands still gets its process killed and reported,
// a peer that said goodbye may fall silent; and the tokens that carry the pids.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "transport/shm/peer_watch.h"
#include "transport/shm/token.h"

using namespace nexar;
using namespace nexar::shm;
using namespace std::chrono_literals;

namespace {

// A child process that sleeps until killed; reaped (and killed if needed) at the end.
struct Sleeper {
  pid_t pid = -1;
  Sleeper() {
    pid = ::fork();
    if (pid == 0) {
      for (;;) ::pause();
    }
  }
  ~Sleeper() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  // How the child ended (waits up to timeout): its terminating signal, or -1.
  int killed_by(std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        pid = -1;
        return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
      }
      std::this_thread::sleep_for(5ms);
    }
    return -1;
  }
};

struct Reports {
  std::mutex mu;
  std::vector<std::pair<int, Status>> got;
  std::vector<bool> silent;
  std::chrono::steady_clock::time_point first;
  PeerWatch::LostFn fn() {
    return [this](int rank, bool s, const Status& why) {
      std::lock_guard<std::mutex> lock(mu);
      if (got.empty()) first = std::chrono::steady_clock::now();
      got.emplace_back(rank, why);
      silent.push_back(s);
    };
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu);
    return got.size();
  }
  bool wait_for(size_t n, std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (count() < n && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(5ms);
    return count() >= n;
  }
};

PeerWatch::Config config(Reports* r, std::vector<WatchedPeer> peers, double silence_s) {
  PeerWatch::Config c;
  c.peers = std::move(peers);
  c.silence_s = silence_s;
  c.tick_ns = 20 * 1000 * 1000;
  c.lost = r->fn();
  return c;
}

}  // namespace

TEST_CASE("an exit is reported at once, and only once", "[shm][detect]") {
  Sleeper a, b;
  Reports r;
  std::atomic<uint64_t> own{0};
  PeerWatch::Config c = config(&r, {{3, a.pid, nullptr}, {5, b.pid, nullptr}}, 60);
  c.own_heartbeat = &own;
  PeerWatch w(std::move(c));
  CHECK(own.load() >= 1);  // the first beat comes with the watch
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(b.pid, SIGKILL);
  REQUIRE(r.wait_for(1, 5s));
  CHECK(std::chrono::duration<double>(r.first - t0).count() < 0.5);
  std::this_thread::sleep_for(100ms);
  REQUIRE(r.count() == 1);
  CHECK(r.got[0].first == 5);
  CHECK(!r.silent[0]);
  CHECK(r.got[0].second.code() == NEXAR_ERR_PEER_LOST);
  CHECK(r.got[0].second.message() == "rank 5 (pid " + std::to_string(b.pid) + ", same host) exited");
  CHECK(own.load() > 1);  // beating on
}

TEST_CASE("a heartbeat that stands still gets its process killed, then reported", "[shm][detect]") {
  Sleeper s;
  Reports r;
  std::atomic<uint64_t> beat{0};
  PeerWatch w(config(&r, {{2, s.pid, &beat}}, 0.3));
  // Never started (0): not counted, however long.
  std::this_thread::sleep_for(500ms);
  CHECK(r.count() == 0);
  // Beating: alive.
  for (int i = 0; i < 25; ++i) {
    beat.fetch_add(1);
    std::this_thread::sleep_for(20ms);
  }
  CHECK(r.count() == 0);
  // Stopped: declared failed after ~0.3 s, killed first.
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(r.wait_for(1, 5s));
  const double after = std::chrono::duration<double>(r.first - t0).count();
  CHECK(after >= 0.25);
  CHECK(after < 2);
  CHECK(r.silent[0]);
  CHECK(r.got[0].second.message().find("rank 2 (pid " + std::to_string(s.pid) +
                                       ", same host) made no progress for") == 0);
  CHECK(r.got[0].second.message().find("declared failed and killed") != std::string::npos);
  CHECK(s.killed_by(5s) == SIGKILL);
}

TEST_CASE("a peer that said goodbye may fall silent; its exit still counts", "[shm][detect]") {
  Sleeper s;
  Reports r;
  std::atomic<uint64_t> beat{7};
  PeerWatch::Config c = config(&r, {{1, s.pid, &beat}}, 0.2);
  c.leaving = [](int) { return true; };
  PeerWatch w(std::move(c));
  std::this_thread::sleep_for(600ms);
  CHECK(r.count() == 0);
  ::kill(s.pid, SIGKILL);
  REQUIRE(r.wait_for(1, 5s));
  CHECK(!r.silent[0]);
}

TEST_CASE("tokens carry the pid with or without shared memory", "[shm][detect]") {
  Token t = Token::make("job1", 3), back;
  REQUIRE(Token::parse(t.to_string(), &back).ok());
  CHECK(back.enabled);
  CHECK(back.pid == ::getpid());
  CHECK(back.compatible(t));
  CHECK(back.same_pids(t));

  Token q = Token::process_only();
  CHECK(q.to_string() == "pid:" + std::to_string(::getpid()) + ":" + q.pid_ns);
  REQUIRE(Token::parse(q.to_string(), &back).ok());
  CHECK(!back.enabled);
  CHECK(!back.compatible(t));  // no shared memory with it
  CHECK(back.same_pids(t));    // but its exit can be watched

  REQUIRE(Token::parse("-", &back).ok());
  CHECK(!back.same_pids(t));
  for (const char* bad : {"pid:0:4026531836", "pid:12:", "pid:12", "pid:x:1", "shm:12:1:2:noslash", "what"}) {
    INFO(bad);
    Status st = Token::parse(bad, &back);
    CHECK(st.code() == NEXAR_ERR_PROTOCOL);
    CHECK(st.message() == std::string("malformed shared-memory token '") + bad + "'");
  }
}
