#include "comm/comm_slots.h"

#include <time.h>

#include <algorithm>
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
// arrive (a slot round trip is ~0.2 us), short against the waiter's own spin.
constexpr auto kSlotSpin = std::chrono::nanoseconds(2000);

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
  return Status::Ok();
}

void CommSlots::publish(coll::SlotField field, uint64_t seq) {
  (a_.slots[static_cast<size_t>(comm_.rank())]->*field).store(seq, std::memory_order_release);
  // A ring costs a fence and a load when nobody sleeps on that doorbell.
  for (size_t r = 0; r < a_.bells.size(); ++r)
    if (static_cast<int>(r) != comm_.rank()) shm::ring(a_.bells[r]);
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
  const auto ready = [&](int m) { return (a_.slots[static_cast<size_t>(m)]->*field).load(std::memory_order_acquire) >= seq; };
  while (next < end && ready(next)) ++next;
  if (next == end) return Status::Ok();
  // A slot round trip is one release store and a spin on the peers' lines: nothing else
  // (no transport polling, no clock but every 64th turn) while the members are running.
  if (a_.spin_first && (a_.spin_score > 0 || (++a_.spin_waits & 15) == 0)) {
    const auto until = p2p::Clock::now() + kSlotSpin;
    for (unsigned n = 1;; ++n) {
      relax();
      while (next < end && ready(next)) ++next;
      if (next == end) {
        a_.spin_score = std::min(a_.spin_score + 1, 8);
        return Status::Ok();
      }
      if ((n & 63) == 0 && p2p::Clock::now() >= until) break;
    }
    a_.spin_score = std::max(a_.spin_score - 2, -8);
  }
  Status stop;
  int64_t last_tick = coarse_tick();
  const auto done = [&] {
    while (next < end && ready(next)) ++next;
    if (next == end) return true;
    // Whether the communicator broke (the engine's context status takes a lock) is looked
    // at once per coarse clock tick (a few ms) while spinning, and on every wake-up after
    // a sleep: a dead peer's hub and remote aborts ring or time out our doorbell's sleep.
    const int64_t t = coarse_tick();
    if (t != last_tick) {
      last_tick = t;
      stop = broken(next);
      if (!stop.ok()) return true;
    }
    return false;
  };
  const bool ok = comm_.engine().waiter().wait(done, deadline_);
  if (!stop.ok()) return stop;
  if (ok) return Status::Ok();
  if (Status b = broken(next); !b.ok()) return b;
  return comm_.fail(not_arrived(field, seq, next, end));
}

Status CommSlots::not_arrived(coll::SlotField field, uint64_t seq, int from, int to) const {
  std::string who;
  for (int m = from; m < to; ++m)
    if ((a_.slots[static_cast<size_t>(m)]->*field).load(std::memory_order_acquire) < seq)
      who += strprintf("%s%d", who.empty() ? "" : ", ", a_.world[static_cast<size_t>(m)]);
  return Status(NEXAR_ERR_TIMEOUT, strprintf("world rank(s) %s did not %s in a shared-slot collective within %.3g s",
                                             who.c_str(), phase_name(field), comm_.timeout()));
}

Status CommSlots::read(int r, void* to, uint64_t from, size_t n) {
  Status st = shm::cma_read(a_.pids[static_cast<size_t>(r)], to, from, n, kReadChunk);
  if (!st.ok()) return comm_.fail(st.with_context(strprintf("reading world rank %d's buffer", a_.world[static_cast<size_t>(r)])));
  return st;
}

}  // namespace nexar::comm
