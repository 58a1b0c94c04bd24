// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "shm_coll/comm_slots.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>

#include "comm/coll_descriptor.h"
#include "comm/comm_coll_context.h"
#include "transport/shm/cma.h"
#include "transport/shm/shm_hub.h"

namespace nexar::comm {
namespace {
constexpr size_t kReadChunk = size_t{1} << 30;  // process_vm_readv takes any size; one call per read
// The pure spin before the engine's waiter: long enough for a peer that is running to
// arrive (a slot round trip is ~0.2 us), short against the waiter's own spin. Measured
// from the 64th turn: a wait that ends sooner never reads the clock.
constexpr auto kSlotSpin = std::chrono::nanoseconds(2000);
// The spin after a wait that ended soon after going past it (SlotArea::long_spin): longer
// than a woken rank takes to run again, and a wait that ends within kLate counts as such.
constexpr auto kSlotLongSpin = std::chrono::microseconds(250);
constexpr auto kLate = std::chrono::milliseconds(1);

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// CLOCK_MONOTONIC_COARSE: a vDSO read of the kernel's tick (a few ms), no system call.
int64_t coarse_tick() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(p2p::Clock::now().time_since_epoch()).count();
}

const char* phase_name(coll::SlotField f) {
  if (f == &shm::CollSlot::arrived) return "arrive";
  if (f == &shm::CollSlot::block_done) return "finish its block";
  return "finish reading";
}
}  // namespace

Status CommSlots::arrive(uint64_t seq, uint64_t count) {
  const int me = comm_.rank();
  shm::CollSlotBuf* mine = buf(me, seq);
  mine->descriptor = descriptor_;
  mine->count = count;
  mine->flags = a_.cma ? shm::kCollSlotCma : 0;
  // glibc reads it from the rseq area (a load). Relaxed atomic: spinning members read it
  // before this arrival is published (a hint only).
  std::atomic_ref<int32_t>(mine->cpu).store(sched_getcpu(), std::memory_order_relaxed);
  publish(&shm::CollSlot::arrived, seq);
  NX_RETURN_IF_ERROR(wait(&shm::CollSlot::arrived, seq, -1));
  // Every rank compares every member's descriptor with its own: each one that disagrees
  // reports the same pair of calls from this call.
  for (int r = 0; r < comm_.size(); ++r) {
    const shm::CollSlotBuf* b = buf(r, seq);
    if (b->descriptor != descriptor_ || b->count != count) {
      std::string what = describe_mismatch(descriptor_, b->descriptor, a_.world[static_cast<size_t>(r)],
                                           a_.world[static_cast<size_t>(me)]);
      if (b->descriptor == descriptor_)
        what = strprintf("world rank %d called with count %llu where world rank %d has count %llu",
                         a_.world[static_cast<size_t>(r)], static_cast<unsigned long long>(b->count),
                         a_.world[static_cast<size_t>(me)], static_cast<unsigned long long>(count));
      return comm_.fail(Status(NEXAR_ERR_MISMATCH, what));
    }
  }
  // Every member now reads this rank's push at seq and then publishes read_done.
  if (a_.pending_push == seq) a_.last_push = seq;
  return Status::Ok();
}

void CommSlots::publish(coll::SlotField field, uint64_t seq) {
  word(comm_.rank(), field, seq).store(seq, std::memory_order_release);
  ring_owed_ = true;
}

int CommSlots::last_cpu(int m, coll::SlotField field, uint64_t seq) const {
  // Waiting for its arrival at seq: its latest is seq - 1's (the other buffer).
  const uint64_t latest = field == &shm::CollSlot::arrived && seq > 1 ? seq - 1 : seq;
  return std::atomic_ref<int32_t>(buf(m, latest)->cpu).load(std::memory_order_relaxed);
}

void CommSlots::ring_owed() {
  if (!ring_owed_) return;
  ring_owed_ = false;
  const size_t me = static_cast<size_t>(comm_.rank());
#if defined(__SANITIZE_THREAD__)
  for (size_t r = 0; r < a_.bells.size(); ++r)
    if (r != me) transport::ring(a_.bells[r]);
#else
  // One fence for every member (transport::ring fences per doorbell); a doorbell nobody sleeps
  // on costs a load of a line that stays shared.
  transport::full_fence();
  for (size_t r = 0; r < a_.bells.size(); ++r) {
    transport::Doorbell* b = a_.bells[r];
    if (r != me && b->sleepers.load(std::memory_order_relaxed) != 0) {
      b->seq.fetch_add(1, std::memory_order_release);
      transport::futex_wake_all(&b->seq);
    }
  }
#endif
}

Status CommSlots::broken(int r) {
  ctx_.tell_engine();
  Status st = comm_.engine().context_status(comm_.coll_context());
  if (!st.ok()) return st;
  NX_RETURN_IF_ERROR(comm_.check_usable());
  if (r >= 0 && !a_.hub->alive(a_.world[static_cast<size_t>(r)]))
    return comm_.fail(Status(NEXAR_ERR_PEER_LOST,
                             strprintf("world rank %d (pid %d, same host) exited during a shared-slot collective",
                                       a_.world[static_cast<size_t>(r)], static_cast<int>(a_.pids[static_cast<size_t>(r)]))));
  return Status::Ok();
}

Status CommSlots::wait(coll::SlotField field, uint64_t seq, int r) {
  int next = r >= 0 ? r : 0;
  const int end = r >= 0 ? r + 1 : comm_.size();
  const auto ready = [&](int m) { return word(m, field, seq).load(std::memory_order_acquire) >= seq; };
  while (next < end && ready(next)) ++next;
  if (next == end) {
    if (!a_.spin_first) a_.crowded.ended(now_ns());
    ring_owed();
    return Status::Ok();
  }
  // A slot round trip is one release store and a spin on the peers' lines: nothing else
  // (no transport polling, no clock in the first 64 turns, then every 64th) while the
  // members are running.
  if (a_.spin_first && (a_.long_spin || a_.spin_score > 0 || (++a_.spin_waits & 15) == 0)) {
    p2p::Clock::time_point until{};
    for (unsigned n = 1;; ++n) {
      // The member we wait for last ran on this CPU (the scheduler put a woken rank next
      // to its waker): spinning only keeps it off; hand the CPU over at once.
      if ((n & 63) == 1 && last_cpu(next, field, seq) == sched_getcpu()) sched_yield();
      relax();
      while (next < end && ready(next)) ++next;
      if (next == end) {
        a_.spin_score = std::min(a_.spin_score + 1, 8);
        ring_owed();
        return Status::Ok();
      }
      if ((n & 63) == 0) {
        const auto now = p2p::Clock::now();
        if (n == 64) {
          until = now + (a_.long_spin ? kSlotLongSpin : kSlotSpin);
          ring_owed();  // a member may sleep on this publication; the store has left by now
        } else if (now >= until) {
          break;
        }
      }
    }
    a_.spin_score = std::max(a_.spin_score - 2, -8);
    a_.long_spin = false;
  }
  ring_owed();  // before this rank may sleep
  const auto slow_start = p2p::Clock::now();
  const bool spin = a_.spin_first || a_.crowded.spin(now_ns(), field == &shm::CollSlot::arrived);  // shm_coll/crowded_wait.h
  const int waited = next;  // recorded while this wait lasts
  int64_t t0 = 0;
  ctx_.wait_begin(waited, &t0);
  Status stop;
  // The first look checks at once: a loss or abort during the spin above moved the epoch
  // before it is read here, and nothing rings again (it slept on to its one-second check).
  int64_t last_tick = 0;
  uint64_t last_epoch = comm_.engine().abort_epoch();
  const auto done = [&] {
    while (next < end && ready(next)) ++next;
    if (next == end) return true;
    // Whether the communicator broke (the engine's context status takes a lock) is looked
    // at once per coarse clock tick (a few ms), and at once when the engine's abort epoch
    // moved: a peer's abort or revocation, a lost peer (each rings our doorbell).
    const int64_t t = coarse_tick();
    const uint64_t e = comm_.engine().abort_epoch();
    if (t != last_tick || e != last_epoch) {
      last_tick = t;
      last_epoch = e;
      stop = broken(next);
      if (!stop.ok()) return true;
    }
    return false;
  };
  const bool ok = comm_.engine().waiter().wait(done, ctx_.deadline(), spin);
  ctx_.wait_end(waited, t0);
  if (!a_.spin_first) {
    const int64_t t = now_ns();
    a_.crowded.took(t - std::chrono::duration_cast<std::chrono::nanoseconds>(slow_start.time_since_epoch()).count());
    a_.crowded.ended(t);
  }
  if (!stop.ok()) return stop;
  if (ok) {
    if (a_.spin_first && p2p::Clock::now() - slow_start < kLate) a_.long_spin = true;
    return Status::Ok();
  }
  if (Status b = broken(next); !b.ok()) return b;
  return comm_.fail(not_arrived(field, seq, next, end));
}

Status CommSlots::not_arrived(coll::SlotField field, uint64_t seq, int from, int to) const {
  std::string who;
  for (int m = from; m < to; ++m)
    if (word(m, field, seq).load(std::memory_order_acquire) < seq)
      who += strprintf("%s%d", who.empty() ? "" : ", ", a_.world[static_cast<size_t>(m)]);
  return Status(NEXAR_ERR_TIMEOUT, strprintf("world rank(s) %s did not %s in a shared-slot collective within %.3g s",
                                             who.c_str(), phase_name(field), comm_.timeout()));
}

Status CommSlots::read(int r, void* to, uint64_t from, size_t n) {
  Status st = shm::cma_read(a_.pids[static_cast<size_t>(r)], to, from, n, kReadChunk);
  if (!st.ok()) return comm_.fail(st.with_context(strprintf("reading world rank %d's buffer", a_.world[static_cast<size_t>(r)])));
  return st;
}

Status CommSlots::write(int r, uint64_t to, const void* from, size_t n) {
  Status st = shm::cma_write(a_.pids[static_cast<size_t>(r)], to, from, n, kReadChunk);
  if (!st.ok()) return comm_.fail(st.with_context(strprintf("writing world rank %d's buffer", a_.world[static_cast<size_t>(r)])));
  return st;
}

Status CommSlots::own_segment(uint64_t seq, size_t bytes, shm::StageSegment** out) {
  std::unique_ptr<shm::StageSegment>& own = a_.pushed[seq & 1];
  if (!own) own = std::make_unique<shm::StageSegment>();
  shm::StageSegment& seg = *own;
  if (seg.bytes() < bytes) {
    size_t cap = size_t{64} << 10;  // powers of two: a growing size is re-created rarely
    while (cap < bytes) cap <<= 1;
    NX_RETURN_IF_ERROR(seg.create(cap));  // the caller does without it
  }
  a_.pending_push = seq;  // last_push once every member arrived at seq (arrive)
  *out = &seg;
  return Status::Ok();
}

Status CommSlots::member_segment(int r, uint64_t seq, const shm::StageRef& ref, shm::StageSegment** out) {
  auto& mapped = a_.members_pushed[seq & 1];
  if (mapped.empty()) mapped.resize(a_.slots.size());
  std::unique_ptr<shm::StageSegment>& seg = mapped[static_cast<size_t>(r)];
  if (!seg) seg = std::make_unique<shm::StageSegment>();
  if (!seg->matches(ref))
    if (Status st = seg->open(ref); !st.ok())
      return comm_.fail(st.with_context(strprintf("world rank %d's alltoallv push segment", a_.world[static_cast<size_t>(r)])));
  *out = seg.get();
  return Status::Ok();
}

}  // namespace nexar::comm
