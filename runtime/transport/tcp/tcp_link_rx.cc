// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// TcpLink receive side: read until the socket is empty (edge-triggered epoll), hand
// frames and payload pieces to the sink in order, stop reading while the sink is full.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/log.h"
#include "core/remote_status.h"
#include "transport/le_bytes.h"
#include "transport/tcp/tcp_hub.h"
#include "transport/tcp/tcp_link.h"

namespace nexar::tcp {
namespace {

// The most one read takes into the link's buffer: an inline message (NEXAR_EAGER_LIMIT,
// 64 KiB by default) in one read, and little of a payload that could have been read
// straight into its receive. A larger inline message takes a few reads.
constexpr size_t kReadChunk = (64u << 10) + 64;

// How many bytes the frame at p takes, as far as the len bytes present tell (at least the
// head of a DATA frame when none are: the one a reader waits for); 0 for an unknown type.
size_t frame_extent(const uint8_t* p, size_t len) {
  if (len == 0) return kDataHead;
  switch (p[0]) {
    case kPing:
      return 1;
    case kCts:
      return kCtsSize;
    case kData:
      return kDataHead;
    case kCredit:
      return kCreditSize;
    case kLargeNow:
      return 1 + quic_link::frame_extent(p + 1, len - 1);
    default:
      return quic_link::frame_extent(p, len);
  }
}

}  // namespace

void TcpLink::resume() {
  resume_requested_.store(true);
  hub_->post([this] { on_readable(); });  // resume() comes under the engine's lock
}

void TcpLink::on_readable() {
  rx_pending_.store(true);
  while (rx_pending_.load() && rx_mu_.try_lock()) {
    rx_pending_.store(false);
    drain_locked();
    rx_mu_.unlock();
  }
}

bool TcpLink::read_now() {
  if (fd_.load(std::memory_order_relaxed) < 0) return false;
  const uint64_t before = rx_reads_.load(std::memory_order_relaxed);
  on_readable();
  const uint64_t got = rx_reads_.load(std::memory_order_relaxed) - before;
  if (got == 0) return false;
  direct_reads_.fetch_add(got, std::memory_order_relaxed);
  return true;
}

void TcpLink::drain_locked() {
  if (rx_dead_) return;
  if (fail_requested_.load(std::memory_order_acquire)) {  // no lock on every drain: set once
    Status fail;
    {
      std::lock_guard<std::mutex> lock(tx_mu_);
      fail = fail_request_;
    }
    return fail_locked(fail);
  }
  const int fd = fd_.load();
  if (fd < 0) return;
  if (resume_requested_.load(std::memory_order_relaxed) && resume_requested_.exchange(false)) {
    paused_.store(false);
    while (!cts_owed_.empty() && granted_ < kMaxGranted) {
      grant(cts_owed_.front());
      cts_owed_.pop_front();
    }
    if (credit_owed_ > 0) return_credit(std::exchange(credit_owed_, 0));
  }
  read_locked(fd);
  place_release_locked();
}

void TcpLink::read_locked(int fd) {
  // Reads on while the sink is full: only what was granted, and small messages, come.
  // A read that left space in the buffer took all the socket had: the next byte to arrive
  // raises a new edge-triggered event, so the read that would only say EAGAIN is skipped
  // (one system call fewer per small message).
  bool emptied = false;
  for (;;) {
    if (!parse_locked() || emptied) return;
    if (rx_off_ == rx_end_) rx_off_ = rx_end_ = 0;
    uint8_t* into = nullptr;
    size_t space = 0;
    bool direct = false;
    if (placed_ && large_left_ > 0 && rx_off_ == rx_end_) {
      // The rest of a placed payload: straight into the receive buffer.
      if (uint8_t* dst = place_claim_locked()) {
        into = dst + (large_len_ - large_left_);
        space = static_cast<size_t>(large_left_);
        direct = true;
      }
    }
    if (!direct) {
      if (rx_end_ == rx_.size()) {  // a frame longer than the space left: make room
        std::memmove(rx_.data(), rx_.data() + rx_off_, rx_end_ - rx_off_);
        rx_end_ -= rx_off_;
        rx_off_ = 0;
        if (rx_end_ == rx_.size()) rx_.resize(rx_.size() * 2);
      }
      into = rx_.data() + rx_end_;
      // At most kReadChunk at a time: a read that takes a LARGE_NOW frame (its payload
      // right behind it, perhaps into a posted receive) copies no more than that.
      space = std::min(rx_.size() - rx_end_, kReadChunk);
      // While a granted payload is still to come after what is being read, read frame by
      // frame (or to the end of the payload being read): never past a DATA frame's head,
      // so that its payload goes straight into a posted receive (above), not through this
      // buffer and a copy.
      if (granted_ + credited_due_ > (large_left_ > 0 ? 1 : 0)) {
        const size_t have = rx_end_ - rx_off_, end = frame_extent(rx_.data() + rx_off_, have);
        const uint64_t left = large_left_ > 0 ? large_left_ : end > have ? end - have : 0;
        if (left > 0 && left < space) space = static_cast<size_t>(left);
      }
    }
    const ssize_t n = ::recv(fd, into, space, MSG_DONTWAIT);
    if (n > 0) {
      last_rx_ns_.store(now_ns());
      rx_reads_.store(rx_reads_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      emptied = static_cast<size_t>(n) < space;
      if (direct)
        payload_locked(nullptr, static_cast<size_t>(n));
      else
        rx_end_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    return fail_locked(Status(NEXAR_ERR_PEER_LOST, n == 0 ? strprintf("rank %d closed its TCP connection", peer_)
                                                          : strprintf("rank %d's TCP connection: %s", peer_,
                                                                      std::strerror(errno))));
  }
}

uint8_t* TcpLink::place_claim_locked() {
  if (!claimed_) {
    uint8_t* dst = nullptr;
    // BOUND or DISCARD when the payload began; a bound receive stays bound until a cancel,
    // which makes it DISCARD.
    place_dst_ = placer_->claim_placement(large_, &dst) == transport::Placement::BOUND ? dst : nullptr;
    claimed_ = true;
  }
  return place_dst_;
}

void TcpLink::place_release_locked() {
  if (!claimed_) return;
  claimed_ = false;
  placer_->release_placement(large_);
}

void TcpLink::payload_locked(const uint8_t* data, size_t n) {
  transport::InboundMsg* msg = large_;
  const uint64_t off = large_len_ - large_left_;
  large_left_ -= n;
  if (placed_) {
    if (data == nullptr) {
      rx_direct_ += n;
    } else if (uint8_t* dst = place_claim_locked()) {
      std::memcpy(dst + off, data, n);
      rx_copied_ += n;
    }
    if (large_left_ == 0) {
      placed_ = claimed_ = false;
      placer_->finish_placement(msg, Status::Ok());  // frees msg
    }
  } else if (msg && !sink_->on_message_data(msg, data, n)) {  // the sink frees it with the last piece
    paused_.store(true);
  }
  if (large_left_ > 0) return;
  large_ = nullptr;
  if (large_credited_) {
    large_credited_ = false;
    --credited_due_;
    return return_credit(large_len_);
  }
  if (--granted_ < kMaxGranted && !paused_.load() && !cts_owed_.empty()) {
    grant(cts_owed_.front());
    cts_owed_.pop_front();
  }
}

void TcpLink::grant(uint64_t seq) {
  ++granted_;
  std::vector<uint8_t> cts{kCts};
  transport::put_le(&cts, seq);
  (void)enqueue(std::move(cts), nullptr);
}

void TcpLink::return_credit(uint64_t bytes) {
  if (paused_.load()) {
    credit_owed_ += bytes;  // sent on resume
    return;
  }
  rx_credit_ += bytes;
  bool alone;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    credit_unsent_ += bytes;
    alone = credit_unsent_ >= kCreditReturnAlone;
  }
  if (alone) (void)enqueue({}, nullptr);  // else it rides on the next frame this side writes
}

bool TcpLink::on_large(const quic_link::Frame& f, bool credited) {
  if (credited) {
    if (f.hdr.len > rx_credit_) {
      fail_locked(Status(NEXAR_ERR_PROTOCOL,
                         strprintf("rank %d sent a %llu-byte payload on credit with %llu bytes of credit left", peer_,
                                   static_cast<unsigned long long>(f.hdr.len),
                                   static_cast<unsigned long long>(rx_credit_))));
      return false;
    }
    rx_credit_ -= f.hdr.len;
  }
  if (!announced_.emplace(f.seq, Announced{sink_->on_message_begin(peer_, f.hdr), f.hdr.len, credited}).second) {
    fail_locked(Status(NEXAR_ERR_PROTOCOL, strprintf("rank %d announced large message %llu twice", peer_,
                                                     static_cast<unsigned long long>(f.seq))));
    return false;
  }
  if (credited)
    ++credited_due_;
  else if (paused_.load() || granted_ >= kMaxGranted)
    cts_owed_.push_back(f.seq);
  else
    grant(f.seq);
  return true;
}

bool TcpLink::parse_locked() {
  while (rx_off_ < rx_end_) {
    const uint8_t* p = rx_.data() + rx_off_;
    const size_t avail = rx_end_ - rx_off_;
    if (large_left_ > 0) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(avail, large_left_));
      rx_off_ += take;
      payload_locked(p, take);
      continue;
    }
    if (p[0] == kPing) {
      ++rx_off_;
      continue;
    }
    if (p[0] == kCts || p[0] == kCredit) {  // a type byte and one word: a sequence or bytes
      static_assert(kCtsSize == kCreditSize);
      if (avail < kCtsSize) return true;
      const bool cts = p[0] == kCts;
      const auto word = transport::get_le<uint64_t>(p + 1);
      rx_off_ += kCtsSize;
      if (!(cts ? on_cts(word) : on_credit(word))) {
        fail_locked(Status(NEXAR_ERR_PROTOCOL, strprintf(cts ? "rank %d granted an unknown large message"
                                                             : "rank %d returned more credit than it was given",
                                                         peer_)));
        return false;
      }
      continue;
    }
    if (p[0] == kLargeNow) {
      quic_link::Frame f;
      Status err;
      const size_t n = quic_link::decode_frame(p + 1, avail - 1, &f, &err);
      if (err.ok() && n > 0 && f.type != quic_link::FrameType::LARGE)
        err = Status(NEXAR_ERR_PROTOCOL, "LARGE_NOW without a LARGE frame");
      if (!err.ok()) {
        fail_locked(err.with_context(strprintf("rank %d's TCP stream", peer_)));
        return false;
      }
      if (n == 0) return true;
      rx_off_ += 1 + n;
      if (!on_large(f, true)) return false;
      continue;
    }
    if (p[0] == kData) {
      if (avail < kDataHead) return true;
      const auto seq = transport::get_le<uint64_t>(p + 1), len = transport::get_le<uint64_t>(p + 9);
      auto it = announced_.find(seq);
      if (it == announced_.end() || it->second.len != len) {
        fail_locked(Status(NEXAR_ERR_PROTOCOL, strprintf("rank %d sent a payload nobody granted", peer_)));
        return false;
      }
      rx_off_ += kDataHead;
      large_ = it->second.msg;
      large_left_ = large_len_ = len;
      large_credited_ = it->second.credited;
      announced_.erase(it);
      // A receive posted by now gets the payload in place; an unexpected one (PENDING)
      // goes to the sink in pieces.
      if (large_ && placer_) {
        uint8_t* dst = nullptr;
        const transport::Placement pl = placer_->claim_placement(large_, &dst);
        placed_ = pl != transport::Placement::PENDING;
        claimed_ = placed_;
        place_dst_ = pl == transport::Placement::BOUND ? dst : nullptr;
      }
      continue;
    }
    quic_link::Frame f;
    Status err;
    const size_t n = quic_link::decode_frame(p, avail, &f, &err);
    if (!err.ok()) {
      fail_locked(err.with_context(strprintf("rank %d's TCP stream", peer_)));
      return false;
    }
    if (n == 0) return true;  // the rest of the frame is still coming
    rx_off_ += n;
    switch (f.type) {
      case quic_link::FrameType::MSG:
        if (!sink_->on_message(peer_, f.hdr, f.payload)) paused_.store(true);
        break;
      case quic_link::FrameType::LARGE:
        if (!on_large(f, false)) return false;
        break;
      case quic_link::FrameType::ABORT:
        sink_->on_remote_abort(peer_, f.hdr.ctx, remote_failure(f.code, f.text));
        break;
      case quic_link::FrameType::BYE: {
        std::lock_guard<std::mutex> lock(tx_mu_);
        bye_received_ = true;
        cv_.notify_all();
        break;
      }
      case quic_link::FrameType::HELLO:
        fail_locked(Status(NEXAR_ERR_PROTOCOL, strprintf("rank %d sent a HELLO on its TCP stream", peer_)));
        return false;
    }
  }
  return true;
}

}  // namespace nexar::tcp
