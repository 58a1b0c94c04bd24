// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The progress thread: one ppoll over the socket, the wake-up eventfd and the timerfd,
// with the earliest ngtcp2 expiry as a nanosecond timeout (timer slack 1 ns, so pacing is
// not throttled by the kernel's default 50 us slack), or none for kBulkPollNs after a bulk
// datagram. It holds io_mu_ except while it sleeps; try_run and poll (endpoint_poll.cc)
// let other threads work in between, and arm the timerfd when they need the loop before
// its timeout.
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {
namespace {
constexpr ngtcp2_tstamp kBlindBoundNs = NGTCP2_MILLISECONDS;  // a blind loop looks again after this
constexpr ngtcp2_tstamp kStaleSpinnerNs = 100 * NGTCP2_MICROSECONDS;
// A datagram this large carries bulk data (loopback's packets; a 1500-byte link's are
// smaller). After a turn that read one the loop polls the socket without sleeping for
// kBulkPollNs: a receiver faster than its sender slept after every datagram and the next
// one woke it, and that wake-up runs on the sender's CPU inside its sendmsg (loopback
// delivers there; a woken idle vCPU is an IPI): 2-9% of the sender's CPU, and the sender
// sets a bulk transfer's rate (docs/quic-performance.md).
constexpr size_t kBulkDatagram = 16384;
constexpr ngtcp2_tstamp kBulkPollNs = 100 * NGTCP2_MICROSECONDS;
// Polls between two sched_yield calls while polling without sleeping: the rank's waiting
// thread may share this core.
constexpr unsigned kBulkPollsPerYield = 8;
}  // namespace

void EndpointImpl::run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  io_mu_.lock();
  inside_ = this;
  while (!stopping_) {
    // Blind while threads poll(): they read the socket and run the timers (endpoint.h,
    // enter_spin). The loop wakes for posted work, writability, an alarm, a thread going
    // to sleep, or after kBlindBoundNs to look again. Not only while a thread is inside a
    // spin: between two waits (a barrier, then the next collective) no thread spins for a
    // few microseconds, and a loop that went back to the socket then took every datagram's
    // wake-up (a core taken from a spinning rank) and the lock ahead of the spinner.
    // Polls that stopped for a while mean the threads compute, or lost their CPU (other
    // load): the loop then watches the socket itself. A thread asleep after its spin needs
    // the loop to (leave_spin / leave_sleep).
    const bool blind = gate_.try_blind(now_ns(), kStaleSpinnerNs);
    // The loop's own sleep is ppoll's timeout (no timer system call per turn); the timerfd
    // is the alarm a direct worker sets when it needs the loop sooner (rearm_timer).
    const ngtcp2_tstamp now0 = now_ns();
    const ngtcp2_tstamp next = next_expiry();
    expiry_hint_.store(next, std::memory_order_relaxed);
    deadline_ = blind ? now0 + kBlindBoundNs : next;
    timer_stale_.store(blind, std::memory_order_relaxed);
    pollfd fds[3] = {{socket_.fd(), static_cast<short>((blind ? 0 : POLLIN) | (want_writable_ ? POLLOUT : 0)), 0},
                     {wake_fd_, POLLIN, 0},
                     {timer_fd_, POLLIN, 0}};
    timespec tmo{};
    // From the end of the turn that read the datagram: a batch's decryption may outlast it.
    if (bulk_read_) bulk_until_ = now0 + kBulkPollNs;
    bulk_read_ = false;
    const bool bulk = !blind && now0 < bulk_until_;
    const ngtcp2_tstamp d = dirty_.empty() && deadline_ > now0 && !bulk ? deadline_ - now0 : 0;
    tmo.tv_sec = static_cast<time_t>(d / NGTCP2_SECONDS);
    tmo.tv_nsec = static_cast<long>(d % NGTCP2_SECONDS);
    timespec* ptmo = deadline_ == UINT64_MAX && dirty_.empty() && !bulk ? nullptr : &tmo;
    inside_ = nullptr;
    io_mu_.unlock();
    if (bulk) {
      bulk_polls_.fetch_add(1, std::memory_order_relaxed);
      if (++bulk_since_yield_ % kBulkPollsPerYield == 0) sched_yield();
    }
    int n = ::ppoll(fds, 3, ptmo, nullptr);
    if (blind) gate_.end_blind();
    home_.return_home();
    loop_wants_lock_.store(true, std::memory_order_relaxed);
    io_mu_.lock();
    loop_wants_lock_.store(false, std::memory_order_relaxed);
    inside_ = this;
    if (n < 0 && errno != EINTR) NX_WARN(NET, "ppoll: %s", std::strerror(errno));
    if (n > 0 && (fds[1].revents & POLLIN)) run_posted();
    if (n > 0 && (fds[2].revents & POLLIN)) {
      uint64_t ticks;
      while (::read(timer_fd_, &ticks, sizeof(ticks)) < 0 && errno == EINTR) {
      }
      armed_ = UINT64_MAX;  // fired: re-armed at the top
      alarms_.fetch_add(1, std::memory_order_relaxed);
    }
    if (n > 0 && (fds[0].revents & POLLERR)) end_unreachable();
    if (n > 0 && (fds[0].revents & POLLIN)) receive(now_ns());
    if (n > 0 && (fds[0].revents & POLLOUT)) {
      want_writable_ = false;
      for (auto& c : conns_) mark_dirty(c.get());
    }
    const ngtcp2_tstamp now = now_ns();
    service_timers(now);
    write_all_dirty(now);
    reap();
  }
  inside_ = nullptr;
  io_mu_.unlock();
}

size_t EndpointImpl::receive(ngtcp2_tstamp rx) {
  receiving_ = true;
  const size_t n = socket_.receive([this, rx](const Address& from, uint8_t* data, size_t len) {
    if (len >= kBulkDatagram && inside_ == this && !direct_) bulk_read_ = true;
    on_datagram(from, data, len, rx);
  });
  receiving_ = false;
  return n;
}

void EndpointImpl::read_queued() {
  if (receiving_) return;
  // Bounded: live peers may keep the socket filled; their datagrams wait for the loop.
  constexpr int kMaxReads = 64;
  for (int i = 0; i < kMaxReads && receive(now_ns()) > 0; ++i) {
  }
}

void EndpointImpl::on_datagram(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now) {
  ngtcp2_version_cid vc;
  int rv = ngtcp2_pkt_decode_version_cid(&vc, data, len, kCidLen);
  if (rv != 0) {
    NX_TRACE(NET, "dropped a %zu-byte datagram from %s: not QUIC v1 (%s)", len, from.to_string().c_str(),
             ngtcp2_strerror(rv));
    return;
  }
  auto it = by_cid_.find(std::string(reinterpret_cast<const char*>(vc.dcid), vc.dcidlen));
  if (it != by_cid_.end()) {
    it->second->on_datagram(from, data, len, now);
    return;
  }
  accept_new(from, data, len, now);
}

// A packet for no known connection: a new client's Initial if we serve, else dropped.
void EndpointImpl::accept_new(const Address& from, uint8_t* data, size_t len, ngtcp2_tstamp now) {
  if (config_.accept_alpns.empty()) return;
  ngtcp2_pkt_hd hd;
  if (ngtcp2_accept(&hd, data, len) != 0) {
    NX_TRACE(NET, "dropped a %zu-byte datagram from %s: no connection, not an Initial", len, from.to_string().c_str());
    return;
  }
  auto conn = std::make_unique<ConnectionImpl>(this, true, from, nullptr);
  ConnectionImpl* c = conn.get();
  conns_.push_back(std::move(conn));
  Status st = c->init_server(hd);
  if (!st.ok()) {
    NX_WARN(NET, "cannot accept a QUIC connection from %s: %s", from.to_string().c_str(), st.to_string().c_str());
    return c->finish(st);
  }
  NX_TRACE(NET, "new QUIC connection from %s", from.to_string().c_str());
  c->on_datagram(from, data, len, now);
}

void EndpointImpl::end_unreachable() {
  std::vector<std::pair<Address, int>> gone;
  socket_.drain_errors([&gone](const Address& dest, int err) {
    NX_TRACE(NET, "ICMP error for %s: %s", dest.to_string().c_str(), std::strerror(err));
    if (err == ECONNREFUSED || err == EHOSTUNREACH || err == ENETUNREACH) gone.emplace_back(dest, err);
  });
  if (gone.empty()) return;
  // The error comes back for a packet we sent after the peer's process went; what that
  // process sent before it went is queued here ahead of it (the same link, in order), and
  // may be more than the loop's one receive per turn takes. Read it, then end: the
  // connections are walked only after the read, which may add one to conns_.
  read_queued();
  for (const auto& [dest, err] : gone)
    for (auto& c : conns_)
      if (c->remote() == dest) c->abort_unreachable(err);
}

ngtcp2_tstamp EndpointImpl::next_expiry(bool acks) const {
  ngtcp2_tstamp next = UINT64_MAX;
  for (const auto& c : conns_) next = std::min(next, c->expiry(acks));
  return next;
}

bool EndpointImpl::service_timers(ngtcp2_tstamp now) {
  bool any = false;
  for (auto& c : conns_) {
    if (c->expiry() <= now) {
      c->on_expiry(now);
      any = true;
    }
  }
  return any;
}

void EndpointImpl::write_dirty(ngtcp2_tstamp now) {
  // write() may mark more connections (or the same) dirty: take the list first.
  std::vector<ConnectionImpl*> list;
  list.swap(dirty_);
  for (ConnectionImpl* c : list) c->dirty = false;
  for (ConnectionImpl* c : list) c->write(now);
}

void EndpointImpl::reap() {
  auto dead = std::stable_partition(conns_.begin(), conns_.end(), [](const auto& c) { return !c->finished(); });
  if (dead == conns_.end()) return;
  for (auto it = dead; it != conns_.end(); ++it) {
    ConnectionImpl* c = it->get();
    for (const auto& key : c->cids()) {
      auto m = by_cid_.find(key);
      if (m != by_cid_.end() && m->second == c) by_cid_.erase(m);
    }
    std::erase(dirty_, c);
  }
  conns_.erase(dead, conns_.end());
}

void EndpointImpl::close_all() {
  for (auto& c : conns_) c->close_for_shutdown();
  reap();
}

}  // namespace nexar::quic
