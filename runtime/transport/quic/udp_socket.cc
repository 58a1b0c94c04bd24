// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic/udp_socket.h"

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/fault.h"
#include "core/log.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

namespace nexar::quic {

namespace {
constexpr size_t kBatch = 32;           // datagrams (or GRO trains) per recvmmsg
constexpr size_t kBufSize = 65536 + 512;
constexpr size_t kMaxRecvCalls = 4;     // recvmmsg calls per receive(): let timers and writes run
constexpr int kSocketBuffer = 8 << 20;  // asked for; the kernel caps it at [rw]mem_max

Status sys_error(const std::string& what) {
  return Status(NEXAR_ERR_SYSTEM, what + ": " + std::strerror(errno));
}
}  // namespace

struct UdpSocket::RecvBatch {
  uint8_t bufs[kBatch][kBufSize];
  sockaddr_storage from[kBatch];
  alignas(cmsghdr) char ctrl[kBatch][CMSG_SPACE(sizeof(int)) * 2];
  iovec iov[kBatch];
  mmsghdr msgs[kBatch];
};

UdpSocket::UdpSocket() = default;

UdpSocket::~UdpSocket() {
  if (ready_ep_ >= 0) ::close(ready_ep_);
  if (fd_ >= 0) ::close(fd_);
}

Status UdpSocket::open(const Address& bind_to) {
  fd_ = ::socket(bind_to.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd_ < 0) return sys_error("UDP socket");
  int one = 1;
  if (bind_to.family() == AF_INET6) ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  int size = kSocketBuffer;
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
  if (::bind(fd_, bind_to.sa(), bind_to.len) != 0) return sys_error("binding UDP " + bind_to.to_string());
  local_.len = sizeof(local_.ss);
  if (::getsockname(fd_, local_.sa(), &local_.len) != 0) return sys_error("getsockname");
  // ICMP errors (a dead peer's port unreachable) into the error queue.
  if (bind_to.family() == AF_INET)
    ::setsockopt(fd_, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
  else
    ::setsockopt(fd_, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
  // DF on every datagram, never fragmented: a datagram larger than the interface's MTU
  // fails to send (EMSGSIZE, like a loss); the sizes come from the route (path_mtu.h) and
  // QUIC's own path-MTU discovery, not from ICMP (PROBE ignores the kernel's learned PMTU).
  int pmtud = bind_to.family() == AF_INET ? IP_PMTUDISC_PROBE : IPV6_PMTUDISC_PROBE;
  if (bind_to.family() == AF_INET ? ::setsockopt(fd_, IPPROTO_IP, IP_MTU_DISCOVER, &pmtud, sizeof(pmtud))
                                  : ::setsockopt(fd_, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtud, sizeof(pmtud)))
    return sys_error("UDP path-MTU discovery mode (DF bit)");
  if (::setsockopt(fd_, SOL_UDP, UDP_GRO, &one, sizeof(one)) != 0)
    NX_TRACE(NET, "UDP_GRO unavailable: %s", std::strerror(errno));
  int seg = 0;
  socklen_t seglen = sizeof(seg);
  gso_ = ::getsockopt(fd_, SOL_UDP, UDP_SEGMENT, &seg, &seglen) == 0;
  ready_ep_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (ready_ep_ < 0) return sys_error("epoll_create1 (UDP readiness)");
  epoll_event ev{};
  ev.events = EPOLLIN;  // level-triggered; EPOLLERR (a queued ICMP error) comes unasked
  if (::epoll_ctl(ready_ep_, EPOLL_CTL_ADD, fd_, &ev) != 0) return sys_error("epoll_ctl (UDP readiness)");
  batch_ = std::make_unique<RecvBatch>();
  faults_ = fault::DatagramFaults::from_params();
  return Status::Ok();
}

int UdpSocket::send(const Address& to, const uint8_t* data, size_t len, size_t segment) {
  iovec iov{const_cast<uint8_t*>(data), len};
  msghdr msg{};
  msg.msg_name = const_cast<sockaddr*>(to.sa());
  msg.msg_namelen = to.len;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(uint16_t))] = {};
  if (len > segment && gso_) {
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof(ctrl);
    cmsghdr* cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_UDP;
    cm->cmsg_type = UDP_SEGMENT;
    cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t seg16 = static_cast<uint16_t>(segment);
    std::memcpy(CMSG_DATA(cm), &seg16, sizeof(seg16));
  } else if (len > segment) {
    // No GSO: one datagram per segment.
    for (size_t off = 0; off < len; off += segment) {
      size_t n = len - off < segment ? len - off : segment;
      int rc = send(to, data + off, n, n);
      if (rc != 0) return rc;  // a partial batch is like loss: QUIC recovers
    }
    return 0;
  }
  for (;;) {
    ssize_t n = ::sendmsg(fd_, &msg, 0);
    if (n >= 0) return 0;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return EAGAIN;
    if (msg.msg_control != nullptr && (errno == EIO || errno == EINVAL)) {
      NX_WARN(NET, "GSO send failed (%s): sending datagrams one by one", std::strerror(errno));
      gso_ = false;
      return send(to, data, len, segment);
    }
    return errno;
  }
}

size_t UdpSocket::receive(const DatagramFn& fn) {
  RecvBatch& b = *batch_;
  size_t total = 0;
  for (size_t call = 0; call < kMaxRecvCalls; ++call) {
    for (size_t i = 0; i < kBatch; ++i) {
      b.iov[i] = {b.bufs[i], kBufSize};
      msghdr& h = b.msgs[i].msg_hdr;
      h = msghdr{};
      h.msg_name = &b.from[i];
      h.msg_namelen = sizeof(b.from[i]);
      h.msg_iov = &b.iov[i];
      h.msg_iovlen = 1;
      h.msg_control = b.ctrl[i];
      h.msg_controllen = sizeof(b.ctrl[i]);
    }
    int n = ::recvmmsg(fd_, b.msgs, kBatch, MSG_DONTWAIT, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A queued ICMP error can surface here; the error queue reports it.
      if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH) continue;
      break;  // EAGAIN or unexpected: poll again
    }
    for (int i = 0; i < n; ++i) {
      msghdr& h = b.msgs[i].msg_hdr;
      size_t len = b.msgs[i].msg_len;
      if ((h.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || len == 0) continue;
      size_t seg = len;
      for (cmsghdr* cm = CMSG_FIRSTHDR(&h); cm != nullptr; cm = CMSG_NXTHDR(&h, cm)) {
        if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
          int gro = 0;
          std::memcpy(&gro, CMSG_DATA(cm), sizeof(gro));
          if (gro > 0) seg = static_cast<size_t>(gro);
        }
      }
      Address from;
      std::memcpy(&from.ss, &b.from[i], sizeof(from.ss));
      from.len = h.msg_namelen;
      for (size_t off = 0; off < len; off += seg) {
        uint8_t* d = b.bufs[i] + off;
        const size_t l = len - off < seg ? len - off : seg;
        int copies = 1;
        if (faults_) {  // testing only (NEXAR_FAULT_DATAGRAMS)
          switch (faults_->roll()) {
            case fault::Datagram::DROP: copies = 0; break;
            case fault::Datagram::DUPLICATE: copies = 2; break;
            case fault::Datagram::CORRUPT: faults_->corrupt(d, l); break;
            case fault::Datagram::DELAY:
              if (holding_) break;  // one held at a time: this one goes as it is
              held_.assign(d, d + l);
              held_from_ = from;
              holding_ = true;
              copies = 0;
              break;
            case fault::Datagram::KEEP: break;
          }
        }
        for (int c = 0; c < copies; ++c) {
          fn(from, d, l);
          ++total;
        }
        if (copies > 0 && holding_) {  // the delayed one, behind this one
          holding_ = false;
          fn(held_from_, held_.data(), held_.size());
          ++total;
        }
      }
    }
    if (static_cast<size_t>(n) < kBatch) break;
  }
  return total;
}

bool UdpSocket::readable() const {
  epoll_event ev;
  // A failed call (EINTR) says "look": receive() finds out.
  return ::epoll_wait(ready_ep_, &ev, 1, 0) != 0;
}

void UdpSocket::drain_errors(const std::function<void(const Address& dest, int err)>& fn) {
  for (int guard = 0; guard < 1024; ++guard) {
    uint8_t data[64];
    iovec iov{data, sizeof(data)};
    Address dest;
    alignas(cmsghdr) char ctrl[512];
    msghdr msg{};
    msg.msg_name = &dest.ss;
    msg.msg_namelen = sizeof(dest.ss);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof(ctrl);
    if (::recvmsg(fd_, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return;
    dest.len = msg.msg_namelen;
    for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm != nullptr; cm = CMSG_NXTHDR(&msg, cm)) {
      bool v4 = cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_RECVERR;
      bool v6 = cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_RECVERR;
      if (!v4 && !v6) continue;
      sock_extended_err ee;
      std::memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
      if (ee.ee_origin == SO_EE_ORIGIN_ICMP || ee.ee_origin == SO_EE_ORIGIN_ICMP6)
        fn(dest, static_cast<int>(ee.ee_errno));
    }
  }
}

}  // namespace nexar::quic
