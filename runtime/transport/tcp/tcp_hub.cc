// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tcp/tcp_hub.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/log.h"
#include "core/text.h"
#include "transport/quic/address.h"

namespace nexar::tcp {
namespace {

constexpr uint64_t kListenTag = 1, kWakeTag = 2, kInnerTag = 3;
constexpr size_t kMaxPending = 64;  // connections being proven at once; more are refused
// A poll() this recent means threads are waiting and reading the sockets: the hub's thread
// stays blind, and looks again after kBlindBoundMs (a thread that stopped polling without
// sleeping, e.g. computing, still gets its sockets read within about a millisecond).
constexpr uint64_t kStalePollerNs = 100000;
constexpr int kBlindBoundMs = 1;
// Up to this many links a waiting thread's poll reads each socket itself (one recv each)
// instead of asking epoll first and reading after (two system calls between a message's
// arrival and its reading, one of them on its path). More links than this: epoll, whose
// one call covers them all.
constexpr int kDirectPollLinks = 2;

Status sys_error(const std::string& what) { return Status(NEXAR_ERR_INTERNAL, what + ": " + std::strerror(errno)); }

// congestion: one the kernel took at create() (empty: the host's default).
void tune(int fd, const std::string& congestion) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (!congestion.empty())
    ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, congestion.data(), static_cast<socklen_t>(congestion.size()));
}

void add(int ep, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

std::string address_of(const sockaddr_storage& ss, socklen_t len) {
  quic::Address a;
  a.ss = ss;
  a.len = len;
  return a.to_string();
}

}  // namespace

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

Status Hub::create(const HubConfig& cfg, std::unique_ptr<Hub>* out) {
  std::unique_ptr<Hub> h(new Hub(cfg));
  quic::Address a;
  NX_RETURN_IF_ERROR(quic::parse_ip(cfg.bind_ip, 0, &a));
  h->listen_fd_ = ::socket(a.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (h->listen_fd_ < 0) return sys_error("creating the TCP listening socket");
  NX_RETURN_IF_ERROR(h->choose_congestion());
  if (::bind(h->listen_fd_, a.sa(), a.len) != 0) return sys_error("binding TCP to " + cfg.bind_ip);
  if (::listen(h->listen_fd_, 128) != 0) return sys_error("listening on TCP");
  a.len = sizeof(a.ss);
  if (::getsockname(h->listen_fd_, a.sa(), &a.len) != 0) return sys_error("reading the TCP listening address");
  h->local_address_ = a.to_string();
  h->outer_ = ::epoll_create1(EPOLL_CLOEXEC);
  h->inner_ = ::epoll_create1(EPOLL_CLOEXEC);
  h->wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (h->outer_ < 0 || h->inner_ < 0 || h->wake_fd_ < 0) return sys_error("creating the TCP hub's epoll sets");
  add(h->outer_, h->listen_fd_, EPOLLIN, kListenTag);
  add(h->outer_, h->wake_fd_, EPOLLIN, kWakeTag);
  add(h->outer_, h->inner_, EPOLLIN, kInnerTag);
  h->links_ = std::make_unique<std::atomic<TcpLink*>[]>(static_cast<size_t>(cfg.world_size));
  for (int p = 0; p < cfg.world_size; ++p) h->links_[static_cast<size_t>(p)].store(nullptr);
  Hub* raw = h.get();
  h->thread_ = std::thread([raw] { raw->run(); });
  *out = std::move(h);
  return Status::Ok();
}

Status Hub::choose_congestion() {
  // The listening socket tells which the kernel takes; every connection gets it in tune().
  std::string refused;
  for (const std::string& name : split(cfg_.congestion, ',')) {
    if (name.empty()) continue;
    if (::setsockopt(listen_fd_, IPPROTO_TCP, TCP_CONGESTION, name.data(), static_cast<socklen_t>(name.size())) == 0) {
      congestion_ = name;
      return Status::Ok();
    }
    refused += strprintf("%s%s: %s", refused.empty() ? "" : ", ", name.c_str(), std::strerror(errno));
  }
  if (refused.empty()) return Status::Ok();  // none asked for: the host's default
  return Status(NEXAR_ERR_INVALID_ARGUMENT,
                strprintf("NEXAR_TCP_CONGESTION=%s: the kernel takes none of it for TCP (%s; see "
                          "net.ipv4.tcp_available_congestion_control and tcp_allowed_congestion_control)",
                          cfg_.congestion.c_str(), refused.c_str()));
}

Hub::~Hub() {
  if (thread_.joinable()) {
    stop_.store(true);
    wake();
    thread_.join();
  }
  for (auto& [p, pend] : pending_) ::close(pend->fd);
  for (auto& d : dials_) ::close(d->fd);
  for (int fd : {listen_fd_, outer_, inner_, wake_fd_})
    if (fd >= 0) ::close(fd);
}

void Hub::set_link(int p, TcpLink* link) { links_[static_cast<size_t>(p)].store(link); }

void Hub::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(post_mu_);
    posted_.push_back(std::move(fn));
  }
  wake();
}

void Hub::wake() {
  uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

Status Hub::dial(TcpLink* link, const std::string& address) {
  quic::Address a;
  NX_RETURN_IF_ERROR(quic::parse_host_port(address, &a).with_context("rank " + std::to_string(link->peer()) + "'s address"));
  const int fd = ::socket(a.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return sys_error("creating a TCP socket");
  tune(fd, congestion_);
  if (::connect(fd, a.sa(), a.len) != 0 && errno != EINPROGRESS) {
    Status st = sys_error(strprintf("connecting to rank %d at %s over TCP", link->peer(), address.c_str()));
    ::close(fd);
    return Status(NEXAR_ERR_PEER_LOST, st.message());
  }
  auto p = std::make_unique<Pending>();
  p->fd = fd;
  p->hs = std::make_unique<Handshake>(cfg_.credential.get(), cfg_.world_size, true, link->peer());
  p->link = link;
  p->address = address;
  p->deadline_ns = now_ns() + static_cast<int64_t>(cfg_.handshake_timeout_s * 1e9);
  p->connecting = true;
  {
    std::lock_guard<std::mutex> lock(dial_mu_);
    dials_.push_back(std::move(p));
  }
  post([] {});  // the thread adopts the dial on its next turn
  return Status::Ok();
}

void Hub::watch(int fd, TcpLink* link) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = link;
  ::epoll_ctl(inner_, EPOLL_CTL_ADD, fd, &ev);
}

void Hub::unwatch(int fd) { ::epoll_ctl(inner_, EPOLL_CTL_DEL, fd, nullptr); }

bool Hub::poll() {
  gate_.note_poll(static_cast<uint64_t>(now_ns()));
  bool moved = false;
  if (cfg_.world_size - 1 <= kDirectPollLinks && poll_direct(&moved)) return moved;
  return poll_inner() > 0;
}

bool Hub::poll_direct(bool* moved) {
  // The edge-triggered events of what is read here stay in the inner set: whoever next
  // asks epoll finds them and reads nothing (one recv that says EAGAIN).
  for (int r = 0; r < cfg_.world_size; ++r) {
    TcpLink* l = links_[static_cast<size_t>(r)].load(std::memory_order_acquire);
    if (l && l->has_backlog()) return false;
  }
  for (int r = 0; r < cfg_.world_size; ++r)
    if (TcpLink* l = links_[static_cast<size_t>(r)].load(std::memory_order_acquire)) *moved = l->read_now() || *moved;
  return true;
}

void Hub::leave_spin(bool going_to_sleep) {
  if (!going_to_sleep) return;  // it got its message: a blind thread stays blind
  gate_.add_sleeper();
  if (gate_.blind()) wake();
}

void Hub::leave_sleep() { gate_.remove_sleeper(); }

bool Hub::decide_blind() {
  const bool blind = gate_.try_blind(static_cast<uint64_t>(now_ns()), kStalePollerNs);
  if (blind != inner_muted_) {
    // Events that come meanwhile stay in the inner set: pollers take them, or this thread
    // once it watches again.
    epoll_event ev{};
    ev.events = blind ? 0u : static_cast<uint32_t>(EPOLLIN);
    ev.data.u64 = kInnerTag;
    ::epoll_ctl(outer_, EPOLL_CTL_MOD, inner_, &ev);
    inner_muted_ = blind;
  }
  return blind;
}

int Hub::poll_inner() {
  epoll_event evs[16];
  const int n = ::epoll_wait(inner_, evs, 16, 0);
  for (int i = 0; i < n; ++i) {
    auto* link = static_cast<TcpLink*>(evs[i].data.ptr);
    if (evs[i].events & EPOLLOUT) link->on_writable();
    if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) link->on_readable();
  }
  return std::max(n, 0);
}

void Hub::run() {
  const int64_t tick_ns = static_cast<int64_t>(std::max(0.02, std::min(cfg_.keepalive_s, cfg_.peer_timeout_s) / 4) * 1e9);
  int64_t next_tick = now_ns() + tick_ns;
  while (!stop_.load()) {
    epoll_event evs[32];
    const bool blind = decide_blind();
    int64_t wait_ms = std::max<int64_t>(0, (next_tick - now_ns()) / 1000000);
    if (blind) wait_ms = std::min<int64_t>(wait_ms, kBlindBoundMs);
    const int n = ::epoll_wait(outer_, evs, 32, static_cast<int>(wait_ms));
    if (blind) gate_.end_blind();
    home_.return_home();
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = evs[i].data.u64;
      if (tag == kListenTag) {
        accept_all();
      } else if (tag == kWakeTag) {
        uint64_t v;
        (void)!::read(wake_fd_, &v, sizeof(v));
      } else if (tag == kInnerTag) {
        poll_inner();
      } else {
        auto* p = reinterpret_cast<Pending*>(tag);
        if (pending_.count(p)) on_pending(p, evs[i].events);
      }
    }
    std::vector<std::function<void()>> work;
    {
      std::lock_guard<std::mutex> lock(post_mu_);
      work.swap(posted_);
    }
    for (auto& fn : work) fn();
    std::vector<std::unique_ptr<Pending>> dials;
    {
      std::lock_guard<std::mutex> lock(dial_mu_);
      dials.swap(dials_);
    }
    for (auto& d : dials) {
      Pending* raw = d.get();
      add(outer_, raw->fd, EPOLLIN | EPOLLOUT, reinterpret_cast<uint64_t>(raw));
      pending_[raw] = std::move(d);
    }
    if (now_ns() >= next_tick) {
      tick();
      next_tick = now_ns() + tick_ns;
    }
  }
}

void Hub::accept_all() {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    const std::string from = address_of(ss, len);
    if (pending_.size() >= kMaxPending) {
      NX_WARN(NET, "rank %d: refusing a TCP connection from %s: %zu connections are already proving themselves",
              cfg_.rank, from.c_str(), pending_.size());
      ::close(fd);
      continue;
    }
    tune(fd, congestion_);
    auto p = std::make_unique<Pending>();
    p->fd = fd;
    p->hs = std::make_unique<Handshake>(cfg_.credential.get(), cfg_.world_size, false, -1);
    p->link = nullptr;
    p->address = from;
    p->deadline_ns = now_ns() + static_cast<int64_t>(cfg_.handshake_timeout_s * 1e9);
    p->connecting = false;
    Pending* raw = p.get();
    add(outer_, fd, EPOLLIN, reinterpret_cast<uint64_t>(raw));
    pending_[raw] = std::move(p);
  }
}

void Hub::on_pending(Pending* p, uint32_t events) {
  if (p->connecting) {
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
      errno = err;
      drop_pending(p, Status(NEXAR_ERR_PEER_LOST, strprintf("connecting to rank %d at %s over TCP: %s",
                                                            p->link->peer(), p->address.c_str(), std::strerror(err))));
      return;
    }
    if (!(events & EPOLLOUT)) return;
    p->connecting = false;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = reinterpret_cast<uint64_t>(p);
    ::epoll_ctl(outer_, EPOLL_CTL_MOD, p->fd, &ev);
  }
  // Read what is there, then send what the exchange wants sent (a few hundred bytes: a
  // fresh socket's buffer takes them whole; a peer that does not read them is dropped).
  uint8_t buf[4096];
  for (;;) {
    const ssize_t n = ::recv(p->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      if (p->hs->on_bytes(buf, static_cast<size_t>(n)) != Handshake::State::kRunning) break;
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      drop_pending(p, Status(NEXAR_ERR_PEER_LOST, n == 0 ? "closed during the connect proof"
                                                        : std::string("reading: ") + std::strerror(errno)));
      return;
    }
    if (errno != EINTR) break;
  }
  auto& out = p->hs->out();
  if (!out.empty()) {
    const ssize_t w = ::send(p->fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (w != static_cast<ssize_t>(out.size())) {
      drop_pending(p, Status(NEXAR_ERR_PEER_LOST, "the peer does not take the connect proof"));
      return;
    }
    out.clear();
  }
  if (p->hs->state() == Handshake::State::kFailed) return drop_pending(p, p->hs->error());
  if (p->hs->state() == Handshake::State::kDone) finish_pending(p);
}

void Hub::finish_pending(Pending* p) {
  ::epoll_ctl(outer_, EPOLL_CTL_DEL, p->fd, nullptr);
  const int peer = p->hs->peer();
  TcpLink* link = p->link ? p->link : links_[static_cast<size_t>(peer)].load();
  const int fd = p->fd;
  std::unique_ptr<Pending> owned = std::move(pending_[p]);
  pending_.erase(p);
  if (link == nullptr || !link->adopt(fd, std::move(owned->hs->leftover()), owned->address)) {
    NX_WARN(NET, "rank %d: refusing a TCP connection from %s proven as rank %d: that rank does not connect here now",
            cfg_.rank, owned->address.c_str(), peer);
    ::close(fd);
    return;
  }
  watch(fd, link);
  link->on_readable();  // bytes that came with the proof, and what arrived since
}

void Hub::drop_pending(Pending* p, const Status& why) {
  ::epoll_ctl(outer_, EPOLL_CTL_DEL, p->fd, nullptr);
  ::close(p->fd);
  std::unique_ptr<Pending> owned = std::move(pending_[p]);
  pending_.erase(p);
  if (owned->link) {
    owned->link->fail_connect(why);
    return;
  }
  NX_WARN(NET, "rank %d: refusing a TCP connection from %s: %s", cfg_.rank, owned->address.c_str(),
          why.to_string().c_str());
}

void Hub::tick() {
  const int64_t now = now_ns();
  std::vector<Pending*> late;
  for (auto& [raw, p] : pending_)
    if (now > p->deadline_ns) late.push_back(raw);
  for (Pending* p : late)
    drop_pending(p, Status(NEXAR_ERR_TIMEOUT, strprintf("no connect proof within %.0f s", cfg_.handshake_timeout_s)));
  const auto ka = static_cast<int64_t>(cfg_.keepalive_s * 1e9), to = static_cast<int64_t>(cfg_.peer_timeout_s * 1e9);
  for (int r = 0; r < cfg_.world_size; ++r)
    if (TcpLink* l = links_[static_cast<size_t>(r)].load()) l->tick(now, ka, to);
}

}  // namespace nexar::tcp
