// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Holding back a bare ACK so that it rides the connection's next packet.
//
// ngtcp2 0.12 acknowledges a packet min(max_ack_delay, smoothed RTT / 8) after it arrived
// (a few microseconds on loopback) and puts an ACK into a data packet only once that delay
// is over, so in a ping-pong of small messages nearly every message got a packet of its
// own back: one more sendmsg on the receiver, one more datagram read and decrypted by the
// sender, both on the critical path of the next message. While an ACK is held, ngtcp2's
// delayed-ACK timer is cancelled (ngtcp2_conn_handle_expiry at its expiry: the ACK stays
// pending) and the connection's next packet, usually the reply, carries it; if none is
// written within the hold, the ACK goes alone at the hold's end, as before. Only ACKs of
// small datagrams are held: the end of a bulk transfer, whose sender completes on the ACK
// and whose receiver has nothing to send back, is acknowledged as before. The hold is far
// below the max_ack_delay both ends announce (25 ms), so the peer's loss detection never
// mistakes a held ACK for a loss.
//
// Neither a delayed ACK of small datagrams nor a hold's end arms the alarm of a blind
// progress loop: the waiting threads run the timers as they poll, and the loop looks
// within 1 ms (EndpointImpl::rearm_timer). Armed, that alarm woke the loop for nearly every
// message of an exchange (both ranks send, then both wait), which made holding slower.
//
// Pure bookkeeping on timestamps; ConnectionImpl (connection_io.cc) drives it.
#pragma once

#include <ngtcp2/ngtcp2.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace nexar::quic {

class AckHold {
 public:
  // Datagrams up to this size count as small (a message up to a few hundred bytes).
  static constexpr size_t kSmallDatagram = 1200;
  // The longest hold NEXAR_QUIC_ACK_HOLD_US may ask for, far below max_ack_delay.
  static constexpr int64_t kMaxHoldUs = 5000;

  // hold_ns 0: never hold (ngtcp2's timing).
  explicit AckHold(uint64_t hold_ns = 0) : hold_ns_(hold_ns) {}

  bool enabled() const { return hold_ns_ > 0; }

  // A datagram of len bytes handed to ngtcp2 with timestamp rx.
  // A large one ends a hold: its ACK (bulk data) goes at ngtcp2's time.
  void on_datagram(ngtcp2_tstamp rx, size_t len) {
    if (len > kSmallDatagram) until_ = UINT64_MAX;
    Mark& m = marks_[next_ % marks_.size()];
    m.rx = rx;
    m.len = len;
    ++next_;
  }

  // Whether ngtcp2's earliest expiry is the delayed-ACK timer of small datagrams alone:
  // expiry == (the arrival of a datagram recorded here) + ack_delay, and every datagram
  // recorded since that arrival is small. ack_delay is ngtcp2's current one, min(local
  // max_ack_delay, smoothed RTT / 8). Another timer at exactly that nanosecond is not
  // told apart; the caller checks that nothing else is due once the ACK timer is cancelled.
  bool is_small_ack_timer(ngtcp2_tstamp expiry, ngtcp2_duration ack_delay) const {
    if (expiry == UINT64_MAX || expiry < ack_delay) return false;
    const ngtcp2_tstamp first = expiry - ack_delay;
    bool found = false;
    const size_t n = next_ < marks_.size() ? next_ : marks_.size();
    for (size_t i = 0; i < n; ++i) {
      const Mark& m = marks_[i];
      if (m.rx < first) continue;
      if (m.len > kSmallDatagram) return false;
      found = found || m.rx == first;
    }
    return found;
  }

  // The ACK timer at expiry (with ack_delay) was cancelled: the ACK goes alone at until().
  void hold(ngtcp2_tstamp expiry, ngtcp2_duration ack_delay) {
    until_ = expiry + hold_ns_;
    first_ = expiry - ack_delay;
  }

  // When a held ACK must be sent alone; UINT64_MAX when none is held.
  ngtcp2_tstamp until() const { return until_; }
  bool holding(ngtcp2_tstamp now) const { return until_ != UINT64_MAX && now < until_; }

  // The connection wrote packets at now while ngtcp2's ACK delay was ack_delay. ngtcp2 puts
  // a pending ACK into a packet once its first packet's arrival + ack_delay has passed: then
  // the held ACK went with them. Else (the smoothed RTT grew since) the hold's end stays as
  // the backstop.
  void on_packets_written(ngtcp2_tstamp now, ngtcp2_duration ack_delay) {
    if (until_ != UINT64_MAX && first_ + ack_delay <= now) until_ = UINT64_MAX;
  }

  // The held ACK is being written now (the hold ended, or another timer was due).
  void release() { until_ = UINT64_MAX; }

 private:
  struct Mark {
    ngtcp2_tstamp rx = 0;
    size_t len = 0;
  };
  uint64_t hold_ns_;
  std::array<Mark, 8> marks_{};  // the last datagrams, oldest overwritten
  size_t next_ = 0;
  ngtcp2_tstamp until_ = UINT64_MAX;
  ngtcp2_tstamp first_ = 0;  // the arrival of the held ACK's first packet
};

}  // namespace nexar::quic
