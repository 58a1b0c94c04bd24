// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Endpoint creation and its thread-safe API; connection bookkeeping for the loop.
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/log.h"
#include "core/params.h"
#include "transport/quic/ack_hold.h"
#include "transport/quic/congestion.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {

Status Endpoint::create(const EndpointConfig& config, std::unique_ptr<Endpoint>* out) {
  if (!config.tls) return Status(NEXAR_ERR_INVALID_ARGUMENT, "QUIC endpoint without TLS credentials");
  if (config.idle_timeout_s <= 0 || config.keepalive_s < 0)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("idle timeout %.3f s / keep-alive %.3f s", config.idle_timeout_s, config.keepalive_s));
  if (config.max_udp_payload != 0 && (config.max_udp_payload < 1200 || config.max_udp_payload > 65527))
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("QUIC packet size %zu outside 1200..65527 (0: the path decides)", config.max_udp_payload));
  NX_RETURN_IF_ERROR(check_congestion_name(config.congestion));
  // A port range (firewalls): the first free port in it.
  const uint32_t last = config.port_max > config.port ? config.port_max : config.port;
  Status s;
  for (uint32_t port = config.port; port <= last; ++port) {
    Address bind_to;
    NX_RETURN_IF_ERROR(parse_ip(config.bind_address, static_cast<uint16_t>(port), &bind_to).with_context("QUIC bind address"));
    auto ep = std::make_unique<EndpointImpl>(config);
    s = ep->start(bind_to);
    if (s.ok()) {
      *out = std::move(ep);
      return s;
    }
  }
  if (last > config.port)
    return s.with_context(strprintf("no free UDP port in %u-%u", config.port, last));
  return s;
}

EndpointImpl::EndpointImpl(const EndpointConfig& config) : config_(config) {}

Status EndpointImpl::start(const Address& bind_to) {
  NX_RETURN_IF_ERROR(socket_.open(bind_to));
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status(NEXAR_ERR_SYSTEM, std::string("eventfd: ") + std::strerror(errno));
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);  // now_ns()'s clock
  if (timer_fd_ < 0) return Status(NEXAR_ERR_SYSTEM, std::string("timerfd: ") + std::strerror(errno));
  NX_INFO(NET, "QUIC endpoint of %s bound to %s (GSO %s)", config_.tls->self().to_string().c_str(),
          local_address().c_str(), socket_.gso() ? "on" : "off");
  thread_ = std::thread([this] { run(); });
  return Status::Ok();
}

EndpointImpl::~EndpointImpl() {
  if (thread_.joinable()) {
    post([this] {
      close_all();
      stopping_ = true;
    });
    thread_.join();
  }
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (timer_fd_ >= 0) ::close(timer_fd_);
}

void EndpointImpl::set_accept_handler(AcceptHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  accept_handler_ = std::move(handler);
}

Application* EndpointImpl::accept(Connection& conn) {
  AcceptHandler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    handler = accept_handler_;
  }
  return handler ? handler(conn) : nullptr;
}

Status EndpointImpl::connect(const std::string& address, const std::string& alpn, ExpectedPeer expect,
                             Application* app) {
  if (app == nullptr) return Status(NEXAR_ERR_INVALID_ARGUMENT, "connect without an Application");
  if (alpn.empty() || alpn.size() > 255) return Status(NEXAR_ERR_INVALID_ARGUMENT, "ALPN must be 1-255 bytes");
  Address remote;
  NX_RETURN_IF_ERROR(parse_host_port(address, &remote));
  if (remote.family() != socket_.local().family())
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  "cannot reach " + address + " from an endpoint bound to " + local_address() + " (address family)");
  post([this, remote, alpn, expect, app] {
    auto conn = std::make_unique<ConnectionImpl>(this, false, remote, app);
    ConnectionImpl* c = conn.get();
    conns_.push_back(std::move(conn));
    Status st = c->init_client(alpn, expect.rank);
    if (!st.ok()) return c->finish(st.with_context("connecting to " + remote.to_string()));
    NX_TRACE(NET, "connecting to %s (%s)", remote.to_string().c_str(), alpn.c_str());
    mark_dirty(c);
  });
  return Status::Ok();
}

void EndpointImpl::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted_.push_back(std::move(fn));
  }
  wake();
}

void EndpointImpl::wake() {
  uint64_t one = 1;
  while (::write(wake_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
}

void EndpointImpl::run_posted() {
  uint64_t count;
  while (::read(wake_fd_, &count, sizeof(count)) < 0 && errno == EINTR) {
  }
  std::vector<std::function<void()>> fns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fns.swap(posted_);
  }
  for (auto& fn : fns) fn();
}

void EndpointImpl::add_cid(const uint8_t* cid, size_t len, ConnectionImpl* conn) {
  std::string key(reinterpret_cast<const char*>(cid), len);
  by_cid_[key] = conn;
  conn->cids().push_back(std::move(key));
}

void EndpointImpl::remove_cid(const uint8_t* cid, size_t len) {
  by_cid_.erase(std::string(reinterpret_cast<const char*>(cid), len));
}

void EndpointImpl::mark_dirty(ConnectionImpl* conn) {
  if (conn->dirty) return;
  conn->dirty = true;
  dirty_.push_back(conn);
}

EndpointConfig endpoint_config_from_params(std::shared_ptr<const tls::Context> tls) {
  EndpointConfig c;
  c.tls = std::move(tls);
  c.idle_timeout_s = param::NEXAR_PEER_TIMEOUT.get();
  c.keepalive_s = param::NEXAR_KEEPALIVE.get();
  int64_t pkt = param::NEXAR_QUIC_PACKET_SIZE.get();
  c.max_udp_payload = pkt <= 0 ? 0 : static_cast<size_t>(pkt < 1200 ? 1200 : (pkt > 65527 ? 65527 : pkt));
  int64_t thresh = param::NEXAR_QUIC_ACK_THRESH.get();
  c.ack_thresh = static_cast<size_t>(thresh < 1 ? 1 : thresh);
  const int64_t hold_us = param::NEXAR_QUIC_ACK_HOLD_US.get();
  c.ack_hold_ns = hold_us <= 0 ? 0 : static_cast<uint64_t>(std::min<int64_t>(hold_us, AckHold::kMaxHoldUs)) * 1000;
  c.congestion = param::NEXAR_QUIC_CC.get();
  // Keep-alive must beat the idle timeout, or an idle connection would die.
  if (c.keepalive_s <= 0 || c.keepalive_s >= c.idle_timeout_s) c.keepalive_s = c.idle_timeout_s / 3;
  std::string addr = param::NEXAR_ADDR.get();
  if (!addr.empty()) c.bind_address = addr;
  unsigned lo = 0, hi = 0;
  char tail = 0;
  const std::string range = param::NEXAR_PORT_RANGE.get();
  if (!range.empty()) {
    if (std::sscanf(range.c_str(), "%u-%u%c", &lo, &hi, &tail) == 2 && lo >= 1 && lo <= hi && hi <= 65535) {
      c.port = static_cast<uint16_t>(lo);
      c.port_max = static_cast<uint16_t>(hi);
    } else {
      NX_WARN(NET, "NEXAR_PORT_RANGE='%s' is not LO-HI within 1-65535: ephemeral ports", range.c_str());
    }
  }
  return c;
}

}  // namespace nexar::quic
