// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// TcpLink lifecycle: dialing, adopting a proven connection, goodbye, failure.
#include "transport/tcp/tcp_link.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/log.h"
#include "core/params.h"
#include "transport/tcp/tcp_hub.h"

namespace nexar::tcp {
namespace {

std::string congestion_of(int fd) {
  char name[32] = {};
  socklen_t len = sizeof(name) - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) return "unknown";
  return name;
}

}  // namespace

TcpLink::TcpLink(int self_rank, int peer, transport::InboundSink* sink, Hub* hub)
    : self_rank_(self_rank),
      peer_(peer),
      eager_limit_(static_cast<uint64_t>(param::NEXAR_EAGER_LIMIT.get())),
      sink_(sink),
      placer_(dynamic_cast<transport::PlacementSink*>(sink)),
      hub_(hub) {}

TcpLink::~TcpLink() {
  const int fd = fd_.load();
  if (fd < 0) return;
  NX_INFO(NET,
          "TCP link to rank %d: large messages sent: %llu on credit, %llu after a CTS; payload into posted receives: "
          "%llu bytes read there directly, %llu copied; reads: %llu, %llu of them by a waiting thread without epoll; "
          "CREDIT frames sent: %llu, %llu of them alone",
          peer_, static_cast<unsigned long long>(sent_on_credit_), static_cast<unsigned long long>(sent_after_cts_),
          static_cast<unsigned long long>(rx_direct_), static_cast<unsigned long long>(rx_copied_),
          static_cast<unsigned long long>(rx_reads_.load()), static_cast<unsigned long long>(direct_reads_.load()),
          static_cast<unsigned long long>(credit_frames_), static_cast<unsigned long long>(credit_alone_));
  // Unread bytes at close() make the kernel reset the connection, which can discard what
  // the peer has not read yet: read them first.
  uint8_t sink[4096];
  while (::recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
  }
  ::close(fd);
}

Status TcpLink::dial(const std::string& address) { return hub_->dial(this, address); }

bool TcpLink::adopt(int fd, std::vector<uint8_t> leftover, const std::string& peer_address) {
  std::lock_guard<std::mutex> rx_lock(rx_mu_);
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (closed_ || fd_.load() >= 0 || !dead_.ok()) return false;
    peer_address_ = peer_address;
    fd_.store(fd);
    ready_ = true;
    last_tx_ns_.store(now_ns());
    last_rx_ns_.store(now_ns());
  }
  rx_.resize(std::max<size_t>(512u << 10, leftover.size()));
  std::copy(leftover.begin(), leftover.end(), rx_.begin());
  rx_off_ = 0;
  rx_end_ = leftover.size();
  cv_.notify_all();
  NX_INFO(NET, "connected to rank %d at %s over TCP (congestion control %s; membership proven at connect; payload in "
          "the clear)", peer_, peer_address.c_str(), congestion_of(fd).c_str());
  on_writable();  // anything queued before the connection
  return true;
}

void TcpLink::fail_connect(const Status& why) {
  std::lock_guard<std::mutex> rx_lock(rx_mu_);
  fail_locked(why);
}

Status TcpLink::wait_ready(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(tx_mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return ready_ || !dead_.ok(); }))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not connect over TCP in time", peer_));
  return dead_.ok() ? Status::Ok() : dead_;
}

void TcpLink::send_bye() {
  std::vector<uint8_t> frame;
  quic_link::encode_bye(&frame);
  bye_sent_.store(true);  // no keep-alive after it: the peer may close once it read BYE
  (void)enqueue(std::move(frame), nullptr);
}

Status TcpLink::wait_goodbye(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(tx_mu_);
  // Everything handed to the kernel is delivered unless the connection breaks, which the
  // peer then sees; its BYE says it read ours.
  auto done = [&] { return bye_received_ ? (!dead_.ok() || (tx_.empty() && await_cts_.empty())) : !dead_.ok(); };
  if (!cv_.wait_until(lock, deadline, done))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not finish its goodbye in time", peer_));
  return bye_received_ ? Status::Ok() : dead_;
}

Status TcpLink::wait_delivered(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(tx_mu_);
  // Handed to the kernel is delivered unless the connection breaks (close() sends a FIN
  // after it, never a reset while this rank still reads).
  if (!cv_.wait_until(lock, deadline, [&] { return !dead_.ok() || (tx_.empty() && await_cts_.empty()); }))
    return Status(NEXAR_ERR_TIMEOUT, strprintf("rank %d did not take the last messages in time", peer_));
  return Status::Ok();
}

void TcpLink::close() {
  std::lock_guard<std::mutex> lock(tx_mu_);
  closed_ = true;
  // FIN after what was written; the peer's end follows and ends this link (fail_locked).
  const int fd = fd_.load();
  if (fd >= 0) ::shutdown(fd, SHUT_WR);
}

void TcpLink::peer_gone(const Status& why) {
  hub_->post([this, why] { fail_on_hub(why); });
}

void TcpLink::fail_on_hub(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (fail_request_.ok()) fail_request_ = why;
    fail_requested_.store(!fail_request_.ok(), std::memory_order_release);
  }
  on_readable();  // the reader applies it
}

void TcpLink::fail_locked(const Status& why) {
  if (rx_dead_) return;
  rx_dead_ = true;
  bool graceful;
  std::deque<TxItem> queued;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    graceful = bye_received_;
    if (dead_.ok()) dead_ = why;
    queued.swap(tx_);
    for (auto& [seq, t] : await_cts_) queued.push_back(std::move(t));
    await_cts_.clear();
  }
  cv_.notify_all();
  const int fd = fd_.load();
  if (fd >= 0) {
    hub_->unwatch(fd);
    ::shutdown(fd, SHUT_RDWR);  // closed by the destructor: the number stays ours meanwhile
  }
  for (TxItem& t : queued)
    if (t.op) t.op->complete(why);
  if (large_) {
    transport::InboundMsg* m = large_;
    large_ = nullptr;
    if (placed_) {
      placed_ = claimed_ = false;
      placer_->finish_placement(m, why);  // a placement ends with finish, claimed or not
    } else {
      sink_->on_message_abandon(m, why);
    }
  }
  for (auto& [seq, a] : announced_)
    if (a.msg) sink_->on_message_abandon(a.msg, why);
  announced_.clear();
  NX_INFO(NET, "TCP connection to rank %d ended: %s", peer_, graceful ? "after its goodbye" : why.to_string().c_str());
  if (!graceful) sink_->on_peer_lost(peer_, why);
}

void TcpLink::tick(int64_t now, int64_t keepalive_ns, int64_t peer_timeout_ns) {
  if (fd_.load() < 0) return;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) return;
  }
  if (!bye_sent_.load() && now - last_tx_ns_.load() > keepalive_ns) (void)enqueue({kPing}, nullptr);
  bool bye_received;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    bye_received = bye_received_;
  }
  if (!bye_received && now - last_rx_ns_.load() > peer_timeout_ns)
    fail_on_hub(Status(NEXAR_ERR_PEER_LOST,
                       strprintf("rank %d sent nothing over TCP for %.1f s (NEXAR_PEER_TIMEOUT)", peer_,
                                 static_cast<double>(now - last_rx_ns_.load()) / 1e9)));
}

}  // namespace nexar::tcp
