// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// QuicLink with NEXAR_CONNECT=lazy: the connection is made on first use. Connections
// always go from the higher rank to the lower (as at an eager init), so a simultaneous
// first use from both sides yields one connection: the lower rank only knocks (knock.h),
// and the higher rank dials once, whether for its own send or for the knock.
#include "core/log.h"
#include "transport/quic_link/quic_link.h"

namespace nexar::quic_link {

void Knock::on_connected(quic::Connection& conn) { link_->on_knock_connected(conn); }
void Knock::on_closed(quic::Connection& conn, const Status& why) { link_->on_knock_closed(conn, why); }

void QuicLink::connect_on_first_use() { lazy_ = true; }

void QuicLink::set_address(const std::string& address) {
  bool pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lazy_address_ = address;
    pending = dial_pending_;
    dial_pending_ = false;
  }
  if (pending) connect_now(address);
}

bool QuicLink::in_use() const { return !lazy_ || started_.load(std::memory_order_acquire); }

void QuicLink::expect() {
  if (lazy_) start_connecting();
}

void QuicLink::start_connecting() {
  if (started_.load(std::memory_order_acquire) || started_.exchange(true, std::memory_order_acq_rel)) return;
  std::string address;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!gone_.ok()) {
      Status why = gone_;
      endpoint_->post([this, why] { fail_unconnected(why); });
      return;
    }
    // A peer that finished its init knocks before this rank learnt its address.
    if (lazy_address_.empty()) {
      dial_pending_ = true;
      return;
    }
    address = lazy_address_;
  }
  connect_now(address);
}

void QuicLink::connect_now(const std::string& address) {
  const bool dials = peer_ < self_rank_;
  NX_INFO(NET, "rank %d %s rank %d at %s (first use)", self_rank_, dials ? "dials" : "knocks on", peer_,
          address.c_str());
  Status st = dials ? dial(address) : endpoint_->connect(address, kAlpn, quic::ExpectedPeer{peer_}, &knock_);
  if (st.ok()) return;
  Status why(NEXAR_ERR_PEER_LOST,
             strprintf("cannot connect to rank %d at %s: %s", peer_, address.c_str(), st.message().c_str()));
  endpoint_->post([this, why] { fail_unconnected(why); });
}

void QuicLink::fail_unconnected(const Status& why) {
  if (conn_ != nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dead_.ok()) return;
  }
  NX_INFO(NET, "rank %d: no connection to rank %d: %s", self_rank_, peer_, why.to_string().c_str());
  fail_everything(why, /*tell_sink=*/true);
  release_knock();  // a knock held for this link gets its answer: none is coming
}

quic::Application* QuicLink::accept_knock(quic::Connection& conn) {
  if (!lazy_ || knock_conn_ != nullptr) return nullptr;
  (void)conn;
  start_connecting();  // at most once in the link's life: a knock after our own dial adds nothing
  return &knock_;
}

void QuicLink::on_knock_connected(quic::Connection& conn) {
  if (!conn.is_server()) return;  // the knocker waits for the peer's answer: its close
  bool answered;
  {
    std::lock_guard<std::mutex> lock(mu_);
    answered = ready_ || !dead_.ok();
  }
  if (answered)
    conn.close(0, "answered");
  else
    knock_conn_ = &conn;
}

void QuicLink::release_knock() {
  if (quic::Connection* k = knock_conn_) {
    knock_conn_ = nullptr;
    k->close(0, "answered");
  }
}

void QuicLink::on_knock_closed(quic::Connection& conn, const Status& why) {
  if (conn.is_server()) {
    if (knock_conn_ == &conn) knock_conn_ = nullptr;
    return;
  }
  // The peer closes our knock once its connection to us is up (adopted here before our
  // HELLO reached it) or failed; a knock that ends while we have none means no connection
  // is coming.
  fail_unconnected(Status(NEXAR_ERR_PEER_LOST,
                          why.ok() ? strprintf("rank %d answered this rank's knock but did not connect", peer_)
                                   : strprintf("rank %d cannot be reached (connecting on first use): %s", peer_,
                                               why.message().c_str())));
}

}  // namespace nexar::quic_link
