// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The waiter's spin when this job's ranks outnumber the cores (SpinYield::kAlways): a
// yield that hands the core to the thread waited for for a whole slice is what the yield is
// for, not a sign to sleep; and the spin still ends in a sleep at its bound. A wait whose
// polls keep moving data (a large payload arriving piece by piece) polls on past the spin
// time instead of sleeping, up to its bound; one whose polls move nothing sleeps once the
// spin time is over (times generous: only a preemption of tens of milliseconds between two
// polls could change the outcome).
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "p2p/waiter.h"

namespace {

using nexar::p2p::Clock;
using nexar::p2p::SpinYield;
using nexar::p2p::Waiter;

struct CountingProgress : nexar::transport::Progress {
  std::atomic<long> polls{0};
  bool poll() override {
    polls.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
};

// Moves data at every poll while `moving`.
struct FakeProgress final : nexar::transport::Progress {
  std::atomic<bool> moving{false};
  bool poll() override { return moving.load(); }
};

struct Listener final : nexar::p2p::SpinListener {
  std::atomic<int> slept{0}, caught{0};
  void spin_begin() override {}
  void spin_end(bool going_to_sleep) override { ++(going_to_sleep ? slept : caught); }
  void sleep_end() override {}
};

// Waits for a flag another thread sets (and rings for) after `after`; true if it came.
bool wait_for_flag(Waiter& w, std::chrono::milliseconds after) {
  std::atomic<bool> done{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(after);
    done.store(true);
    w.ring();
  });
  const bool ok = w.wait([&] { return done.load(); }, Clock::now() + std::chrono::seconds(10));
  setter.join();
  return ok;
}

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Pins the calling thread to one CPU of this process's mask.
void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0);
}

int first_cpu() {
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return c;
  FAIL("no CPU in this process's affinity mask");
  return 0;
}

}  // namespace

TEST_CASE("a crowded waiter yields its core to the thread it waits for and keeps spinning", "[p2p][unit]") {
  // Both threads on one CPU: the waiter's yield hands the core to the worker, which keeps
  // it for a whole slice (milliseconds) before it sets the flag without ringing anything.
  // A waiter that took that gap for lost CPU would sleep on its doorbell until the deadline.
  cpu_set_t was;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof(was), &was) == 0);
  const int cpu = first_cpu();
  pin_to(cpu);
  CountingProgress progress;
  Waiter w;
  w.configure(nullptr, &progress, /*spin_ns=*/2'000'000'000, SpinYield::kAlways);
  std::atomic<bool> flag{false};
  std::thread worker([&] {
    pin_to(cpu);
    const auto until = Clock::now() + std::chrono::milliseconds(20);
    while (Clock::now() < until) {  // computes without yielding, as a rank's reduction does
    }
    flag.store(true, std::memory_order_release);
  });
  const auto t0 = Clock::now();
  const bool ok = w.wait([&] { return flag.load(std::memory_order_acquire); }, t0 + std::chrono::seconds(3));
  const auto took = Clock::now() - t0;
  worker.join();
  pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
  CHECK(ok);
  // Asleep, it would have looked again only after a second (the sleep's bound); the worker
  // needs 20 ms: generous for a loaded machine.
  CHECK(took < std::chrono::milliseconds(500));
  CHECK(progress.polls.load() > 1);
}

TEST_CASE("a crowded waiter sleeps once its spin bound passed", "[p2p][unit]") {
  CountingProgress progress;
  Waiter w;
  w.configure(nullptr, &progress, /*spin_ns=*/5'000'000, SpinYield::kAlways);
  const double c0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  const bool ok = w.wait([] { return false; }, t0 + std::chrono::milliseconds(200));
  const double cpu = thread_cpu_seconds() - c0;
  CHECK_FALSE(ok);
  CHECK(Clock::now() - t0 >= std::chrono::milliseconds(200));
  // 5 ms of yielding spin, then asleep until the deadline: far below the 200 ms a spin would cost.
  CHECK(cpu < 0.1);
}

// How one wait ended (polls moving data or not, a spin of spin_ns, the flag after `after`):
// {caught while spinning, went to sleep}.
std::pair<int, int> wait_outcome(bool moving, int64_t spin_ns, std::chrono::milliseconds after) {
  FakeProgress progress;
  Listener listener;
  Waiter w;
  progress.moving = moving;
  w.configure(nullptr, &progress, spin_ns, SpinYield::kAfterHard, &listener);
  REQUIRE(wait_for_flag(w, after));
  return {listener.caught.load(), listener.slept.load()};
}

TEST_CASE("a wait whose polls move data polls on past its spin time", "[p2p][unit]") {
  // Spin 100 ms, the flag at 300 ms: caught only if the moving polls extended the spin.
  CHECK(wait_outcome(true, 100'000'000, std::chrono::milliseconds(300)) == std::pair<int, int>{1, 0});
}

TEST_CASE("a wait whose polls move nothing sleeps after its spin time", "[p2p][unit]") {
  CHECK(wait_outcome(false, 20'000'000, std::chrono::milliseconds(300)) == std::pair<int, int>{0, 1});
}

TEST_CASE("a wait whose polls always move data still sleeps after its bound", "[p2p][unit]") {
  // Spin 2 ms, so the bound is 80 ms; the flag comes long after it.
  CHECK(wait_outcome(true, 2'000'000, std::chrono::milliseconds(400)) == std::pair<int, int>{0, 1});
}

namespace {
// This thread's affinity mask, and the CPUs in it.
cpu_set_t own_mask() {
  cpu_set_t set;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0);
  return set;
}
std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}
bool same_mask(const cpu_set_t& mask) {
  const cpu_set_t now = own_mask();
  return CPU_EQUAL(&mask, &now);
}
// Moves this thread to `cpu` and gives it back `mask`: it runs on cpu, free to go anywhere.
void move_to(int cpu, const cpu_set_t& mask) {
  pin_to(cpu);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0);
}
}  // namespace

TEST_CASE("a wait that ends away from its home core takes its thread home, the mask kept", "[p2p][unit]") {
  const cpu_set_t mask = own_mask();
  const std::vector<int> cpus = cpus_of(mask);
  if (cpus.size() < 2) {
    WARN("one CPU in this process's mask: nothing to move between");
    return;
  }
  const int home = cpus[0], away = cpus[1];
  CountingProgress progress;
  Waiter w;
  w.configure(nullptr, &progress, /*spin_ns=*/50'000'000, SpinYield::kAfterHard);
  w.home().set(home);
  move_to(away, mask);
  const auto t0 = Clock::now();
  REQUIRE(w.wait([&] { return progress.polls.load() >= 3; }, t0 + std::chrono::seconds(5)));
  CHECK(sched_getcpu() == home);
  CHECK(same_mask(mask));
  // Within kIntervalNs of that move no thread is moved again.
  move_to(away, mask);
  const bool moved = w.home().return_home();
  if (Clock::now() - t0 < std::chrono::nanoseconds(nexar::CoreHome::kIntervalNs)) CHECK_FALSE(moved);
  // No home: a wait leaves its thread where it is (checked right after the wait: the
  // scheduler rarely moves a running thread within microseconds).
  w.home().set(-1);
  move_to(away, mask);
  REQUIRE(w.wait([&] { return progress.polls.load() >= 6; }, Clock::now() + std::chrono::seconds(5)));
  CHECK(same_mask(mask));
}

TEST_CASE("the home of a rank is a CPU of its mask, one per local index, none when bound to one", "[p2p][unit]") {
  const cpu_set_t mask = own_mask();
  const std::vector<int> cpus = cpus_of(mask);
  if (cpus.size() >= 2) {
    CHECK(nexar::home_cpu_for(0) == cpus[0]);
    CHECK(nexar::home_cpu_for(1) == cpus[1]);
    CHECK(nexar::home_cpu_for(static_cast<int>(cpus.size())) == cpus[0]);
  }
  CHECK(nexar::home_cpu_for(-1) == -1);
  pin_to(cpus[0]);
  const int bound = nexar::home_cpu_for(0);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0);
  CHECK(bound == -1);
}
