// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Packets in, packets out, timers. Outgoing packets of one write() go out as one GSO
// batch of equal-size segments (only the last may be shorter). A paced connection writes
// at most the congestion controller's send quantum in bytes (at least kMinBurstPackets
// packets), then pacing decides when the next batch may leave; an unpaced one (loopback,
// path_mtu.h) writes until the congestion window or the data runs out.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {
namespace {
constexpr size_t kMinBurstPackets = 4;
}  // namespace

void ConnectionImpl::on_datagram(const Address& from, const uint8_t* data, size_t len, ngtcp2_tstamp now) {
  if (finished_ || close_) return;
  ngtcp2_path path{{const_cast<sockaddr*>(ep_->socket().local().sa()), ep_->socket().local().len},
                   {const_cast<sockaddr*>(from.sa()), from.len}};
  ngtcp2_pkt_info pi{};
  if (connected_) {
    last_rx_ = now;
    ack_hold_.on_datagram(now, len);
  }
  int rv = ngtcp2_conn_read_pkt(conn_, &path, &pi, data, len, now);
  if (rv != 0) on_read_error(rv);
  ep_->mark_dirty(this);  // not asked: with a held ACK and nothing else asked for, no write
}

ngtcp2_tstamp ConnectionImpl::silence_deadline() const {
  return connected_ ? last_rx_ + static_cast<ngtcp2_tstamp>(ep_->config().idle_timeout_s * NGTCP2_SECONDS) : UINT64_MAX;
}

ngtcp2_duration ConnectionImpl::ack_delay() const {
  ngtcp2_conn_stat cs;
  ngtcp2_conn_get_conn_stat(conn_, &cs);
  return std::min<ngtcp2_duration>(max_ack_delay_, cs.smoothed_rtt / 8);
}

bool ConnectionImpl::hold_ack(ngtcp2_tstamp now) {
  if (!ack_hold_.enabled() || !connected_) return false;
  const ngtcp2_tstamp at = ngtcp2_conn_get_expiry(conn_);
  const ngtcp2_duration delay = ack_delay();
  if (at > now || !ack_hold_.is_small_ack_timer(at, delay)) return false;
  // Expiring the timers due at `at` cancels the ACK timer and leaves the ACK pending. Had
  // anything else come due by now (a loss timer, a pacing slot), write at once as before.
  if (ngtcp2_conn_handle_expiry(conn_, at) != 0 || ngtcp2_conn_get_expiry(conn_) <= now) return false;
  ack_hold_.hold(at, delay);
  return true;
}

void ConnectionImpl::on_expiry(ngtcp2_tstamp now) {
  if (finished_ || close_) return;
  const bool silent = now >= silence_deadline();
  if (!silent && hold_ack(now)) return;
  ack_hold_.release();  // the write below carries any pending ACK
  int rv = silent ? NGTCP2_ERR_IDLE_CLOSE : ngtcp2_conn_handle_expiry(conn_, now);
  if (rv == NGTCP2_ERR_IDLE_CLOSE || rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT) {
    double secs = ep_->config().idle_timeout_s;
    Status why = connected_ ? Status(NEXAR_ERR_PEER_LOST, strprintf("no packet from %s in %.1f s", who().c_str(), secs))
                            : Status(NEXAR_ERR_TIMEOUT, strprintf("no QUIC handshake with %s (%s)", who().c_str(),
                                                                  rv == NGTCP2_ERR_IDLE_CLOSE ? "silent peer"
                                                                                              : "handshake timeout"));
    request_close({ngtcp2_connection_close_error{}, {}, why, false});
  } else if (rv != 0) {
    request_liberr_close(rv, "timer");
  }
  schedule_write();
}

ngtcp2_tstamp ConnectionImpl::expiry(bool acks) const {
  if (finished_ || conn_ == nullptr) return UINT64_MAX;
  if (close_ || !pending_.empty()) return UINT64_MAX;  // handled by write() / writability
  ngtcp2_tstamp ng = ngtcp2_conn_get_expiry(conn_);
  if (!acks && connected_ && ack_hold_.is_small_ack_timer(ng, ack_delay())) ng = UINT64_MAX;
  return std::min({ng, silence_deadline(), acks ? ack_hold_.until() : UINT64_MAX});
}

bool ConnectionImpl::send_batch(const ngtcp2_path& path, size_t len, size_t segment) {
  Address to;
  std::memcpy(&to.ss, path.remote.addr, path.remote.addrlen);
  to.len = path.remote.addrlen;
  int rc = ep_->socket().send(to, txbuf_.data(), len, segment);
  if (rc == EAGAIN) {
    pending_.assign(txbuf_.data(), txbuf_.data() + len);
    pending_segment_ = segment;
    ep_->want_writable();
    return false;
  }
  if (rc != 0) NX_TRACE(NET, "send to %s: %s", who().c_str(), std::strerror(rc));  // like loss
  return true;
}

bool ConnectionImpl::flush_pending() {
  if (pending_.empty()) return true;
  int rc = ep_->socket().send(remote_, pending_.data(), pending_.size(), pending_segment_);
  if (rc == EAGAIN) {
    ep_->want_writable();
    return false;
  }
  pending_.clear();
  return true;
}

// ngtcp2 took ndatalen bytes (and the FIN, when it took everything) of the offer.
void ConnectionImpl::take_offer(ngtcp2_ssize ndatalen) {
  have_offer_ = false;
  if (ndatalen < 0 || app_ == nullptr) return;
  uint64_t n = static_cast<uint64_t>(ndatalen);
  bool fin_taken = offer_.fin && n == offer_.bytes;
  if (n > 0 || fin_taken) app_->on_written(*this, offer_.sid, static_cast<size_t>(n), fin_taken);
}

// A close is carried out by the progress thread only: it calls the application back
// (on_closed) and the connection is reaped after it, which a thread inside try_run or
// poll must not run into.
bool ConnectionImpl::close_now() {
  if (!close_) return false;
  if (ep_->direct()) {
    ep_->mark_dirty(this);
    ep_->need_loop();
  } else {
    carry_out_close();
  }
  return true;
}

void ConnectionImpl::pull_offer() {
  if (have_offer_ || app_ == nullptr || !connected_) return;
  offer_.sid = -1;
  offer_.fin = false;
  offer_.nvecs = app_->next_write(*this, &offer_.sid, offer_.vecs, kMaxVecs, &offer_.fin);
  offer_.nvecs = std::min(offer_.nvecs, kMaxVecs);
  offer_.bytes = 0;
  for (size_t i = 0; i < offer_.nvecs; ++i) offer_.bytes += offer_.vecs[i].len;
  have_offer_ = offer_.sid >= 0 && (offer_.nvecs > 0 || offer_.fin);
}

void ConnectionImpl::write(ngtcp2_tstamp now) {
  if (finished_ || close_now()) return;
  if (!flush_pending()) return;
  if (ack_hold_.enabled()) {
    // With no stream data to send, ngtcp2 would write the due ACK alone: hold it (ack_hold.h).
    // Whatever else the packet would have carried (a retransmission, flow-control credit)
    // waits with it, at most until the hold's end.
    pull_offer();
    const bool asked = write_asked_;
    write_asked_ = false;
    if (!asked && !have_offer_ && (ack_hold_.holding(now) || hold_ack(now))) return;
  }
  const size_t pkt = std::max<size_t>(ngtcp2_conn_get_path_max_tx_udp_payload_size(conn_), 1200);
  const size_t probe_room = std::max(ngtcp2_conn_get_max_tx_udp_payload_size(conn_), pkt);
  const size_t quantum = std::max(ngtcp2_conn_get_send_quantum(conn_), pkt);
  // Bytes this call may write before pacing decides when the next batch leaves. ngtcp2's
  // quantum (64 KiB) is less than one loopback-sized packet (65000 bytes),
  // so a budget in packets sent one packet per pacing slot: a timer and a progress-thread
  // wake-up per 64 KB. With small packets the quantum rules as before.
  const size_t budget = paced_ ? std::max(quantum, kMinBurstPackets * pkt) : SIZE_MAX;
  const bool gso = ep_->socket().gso();
  ngtcp2_path_storage ps;
  ngtcp2_path_storage_zero(&ps);
  ngtcp2_pkt_info pi{};
  size_t off = 0, segment = 0, in_batch = 0, written = 0;
  int refused_offers = 0;  // bounds a misbehaving app that re-offers blocked streams
  bool packet_has_data = false;  // stream data went into the packet being written

  while (written < budget) {
    if (refused_offers < 64) pull_offer();
    uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
    if (have_offer_ && offer_.fin) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
    ngtcp2_ssize ndatalen = -1;
    // A batch's first packet may be a path-MTU probe, larger than the path's packets.
    const size_t destlen = off == 0 ? probe_room : segment;
    ngtcp2_ssize n = ngtcp2_conn_writev_stream(conn_, &ps.path, &pi, txbuf_.data() + off, destlen, &ndatalen, flags,
                                               have_offer_ ? offer_.sid : -1, have_offer_ ? offer_.vecs : nullptr,
                                               have_offer_ ? offer_.nvecs : 0, now);
    if (n == NGTCP2_ERR_WRITE_MORE) {
      take_offer(ndatalen);
      packet_has_data = true;  // the packet goes on; a later call finishes it
      continue;
    }
    if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED || n == NGTCP2_ERR_STREAM_SHUT_WR || n == NGTCP2_ERR_STREAM_NOT_FOUND) {
      // Blocked: offered again after on_stream_writable. Shut/closed: the app has had
      // on_stream_close for it.
      if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED && app_ != nullptr) app_->on_blocked(*this, offer_.sid);
      // Nothing more can ever be written there: the app must stop offering it.
      if (n != NGTCP2_ERR_STREAM_DATA_BLOCKED && app_ != nullptr) app_->on_written(*this, offer_.sid, 0, true);
      have_offer_ = false;
      ++refused_offers;
      continue;
    }
    if (n < 0) {
      request_liberr_close(static_cast<int>(n), "writing packets");
      break;
    }
    if (have_offer_) take_offer(ndatalen);
    if (n == 0) break;  // congestion- or pacing-limited, or nothing to send
    if (ndatalen < 0 && !packet_has_data) ep_->count_packet_without_data();
    packet_has_data = false;
    written += static_cast<size_t>(n);
    if (off == 0) segment = static_cast<size_t>(n);
    off += static_cast<size_t>(n);
    ++in_batch;
    bool short_segment = static_cast<size_t>(n) < segment;
    if (!gso || short_segment || in_batch >= UdpSocket::kMaxGsoSegments || off + segment > UdpSocket::kMaxGsoBytes) {
      bool sent = send_batch(ps.path, off, segment);
      off = 0;
      in_batch = 0;
      if (!sent) break;
    }
  }
  if (off > 0) send_batch(ps.path, off, segment);
  if (written > 0 && ack_hold_.until() != UINT64_MAX) ack_hold_.on_packets_written(now, ack_delay());
  if (written >= budget) ep_->count_budget_ended_write();  // the rest waits for a pacing slot
  if (paced_) ngtcp2_conn_update_pkt_tx_time(conn_, now);
  close_now();
}

}  // namespace nexar::quic
