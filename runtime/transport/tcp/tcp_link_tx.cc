// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// TcpLink send side: frames and large payloads go out in order by writev (sendmsg) from
// the calling thread; the rest waits for EPOLLOUT.
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "transport/le_bytes.h"
#include "transport/tcp/tcp_hub.h"
#include "transport/tcp/tcp_link.h"

namespace nexar::tcp {
namespace {
constexpr size_t kMaxIov = 64;
}

void TcpLink::send(transport::SendOp* op) {
  if (op->hdr.len <= eager_limit_) {
    op->complete(send_msg(op->hdr, op->data));  // the kernel or the queue has the payload (or the link is dead)
    return;
  }
  std::vector<uint8_t> frame;
  std::vector<transport::SendOp*> done;
  Status dead;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    dead = dead_;
    if (dead.ok()) {
      push_credit_locked();
      const uint64_t seq = next_tx_seq_++;
      std::vector<uint8_t> data_head{kData};
      transport::put_le(&data_head, seq);
      transport::put_le(&data_head, op->hdr.len);
      if (op->hdr.len <= tx_credit_) {
        // On credit: LARGE_NOW, then the payload at once (no CTS round trip).
        tx_credit_ -= op->hdr.len;
        ++sent_on_credit_;
        frame.push_back(kLargeNow);
        quic_link::encode_large(&frame, op->hdr, seq);
        frame.insert(frame.end(), data_head.begin(), data_head.end());
        tx_.push_back(TxItem{std::move(frame), op, 0});
      } else {
        ++sent_after_cts_;
        quic_link::encode_large(&frame, op->hdr, seq);
        await_cts_.emplace(seq, TxItem{std::move(data_head), op, 0});
        tx_.push_back(TxItem{std::move(frame), nullptr, 0});
      }
      if (fd_.load() >= 0) flush_locked(&done);
    }
  }
  if (!dead.ok()) op->complete(dead);
  for (transport::SendOp* d : done) d->complete(Status::Ok());
}

Status TcpLink::send_msg(const transport::MsgHeader& hdr, const uint8_t* data) {
  // [CREDIT frame, when credit is unsent] MSG head; the payload follows from data.
  uint8_t frames[kCreditSize + quic_link::kMsgHeadSize];
  const auto len = static_cast<size_t>(hdr.len);
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (!dead_.ok()) return dead_;
    const int fd = fd_.load();
    if (fd >= 0 && tx_.empty()) {
      // Nothing queued ahead: one writev from the head and the caller's buffer, no frame
      // built (building one cost allocations and a copy on every small message).
      size_t head = take_credit_locked(frames);
      quic_link::encode_msg_head(frames + head, hdr);
      head += quic_link::kMsgHeadSize;
      iovec iov[2] = {{frames, head}, {const_cast<uint8_t*>(data), len}};
      const ssize_t w = write_locked(fd, iov, len ? 2 : 1);
      const size_t took = w > 0 ? static_cast<size_t>(w) : 0;
      if (took == head + len) return Status::Ok();
      // The socket is full: the rest waits for EPOLLOUT, from a copy.
      std::vector<uint8_t> rest;
      rest.reserve(head + len - took);
      if (took < head) rest.insert(rest.end(), frames + took, frames + head);
      const size_t from = took > head ? took - head : 0;
      rest.insert(rest.end(), data + from, data + len);
      tx_.push_back(TxItem{std::move(rest), nullptr, 0});
      std::vector<transport::SendOp*> none;  // the queue held no large message
      flush_locked(&none);
      return Status::Ok();
    }
  }
  std::vector<uint8_t> frame(quic_link::kMsgHeadSize + len);
  quic_link::encode_msg_head(frame.data(), hdr);
  if (len) std::memcpy(frame.data() + quic_link::kMsgHeadSize, data, len);
  return enqueue(std::move(frame), nullptr);
}

ssize_t TcpLink::write_locked(int fd, iovec* iov, size_t n) {
  msghdr mh{};
  mh.msg_iov = iov;
  mh.msg_iovlen = n;
  for (;;) {
    const ssize_t w = ::sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w >= 0) {
      if (w > 0) last_tx_ns_.store(now_ns());
      return w;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      // The reader sees the broken connection too; tell it in case it does not.
      const Status why(NEXAR_ERR_PEER_LOST, strprintf("sending to rank %d over TCP: %s", peer_, std::strerror(errno)));
      hub_->post([this, why] { fail_on_hub(why); });
    }
    return -1;
  }
}

bool TcpLink::on_cts(uint64_t seq) {
  std::vector<transport::SendOp*> done;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    auto it = await_cts_.find(seq);
    if (it == await_cts_.end()) return false;
    push_credit_locked();
    tx_.push_back(std::move(it->second));
    await_cts_.erase(it);
    if (fd_.load() >= 0 && dead_.ok()) flush_locked(&done);
  }
  for (transport::SendOp* d : done) d->complete(Status::Ok());
  return true;
}

bool TcpLink::on_credit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(tx_mu_);
  if (bytes > kCreditBytes - tx_credit_) return false;
  tx_credit_ += bytes;
  return true;
}

void TcpLink::send_abort(uint32_t ctx, const Status& why) {
  std::vector<uint8_t> frame;
  quic_link::encode_abort(&frame, ctx, why.code(), why.message());
  (void)enqueue(std::move(frame), nullptr);
}

Status TcpLink::enqueue(std::vector<uint8_t> head, transport::SendOp* op) {
  std::vector<transport::SendOp*> done;
  Status dead;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    dead = dead_;
    if (dead.ok()) {
      if (push_credit_locked() && head.empty() && !op) ++credit_alone_;
      if (!head.empty() || op) tx_.push_back(TxItem{std::move(head), op, 0});
      if (fd_.load() >= 0) flush_locked(&done);
    }
  }
  if (!dead.ok() && op) op->complete(dead);
  for (transport::SendOp* d : done) d->complete(Status::Ok());
  return dead;
}

size_t TcpLink::take_credit_locked(uint8_t* out) {
  if (credit_unsent_ == 0) return 0;
  out[0] = kCredit;
  std::memcpy(out + 1, &credit_unsent_, 8);  // little-endian hosts (le_bytes.h)
  credit_unsent_ = 0;
  ++credit_frames_;
  return kCreditSize;
}

bool TcpLink::push_credit_locked() {
  std::vector<uint8_t> credit(kCreditSize);
  if (take_credit_locked(credit.data()) == 0) return false;
  tx_.push_back(TxItem{std::move(credit), nullptr, 0});
  return true;
}

void TcpLink::on_writable() {
  std::vector<transport::SendOp*> done;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    if (fd_.load() >= 0 && dead_.ok()) flush_locked(&done);
  }
  for (transport::SendOp* d : done) d->complete(Status::Ok());
}

void TcpLink::flush_locked(std::vector<transport::SendOp*>* done) {
  const int fd = fd_.load();
  while (!tx_.empty()) {
    iovec iov[kMaxIov];
    size_t n = 0;
    for (auto it = tx_.begin(); it != tx_.end() && n + 2 <= kMaxIov; ++it) {
      size_t off = it->done;
      if (off < it->head.size()) {
        iov[n++] = {it->head.data() + off, it->head.size() - off};
        off = it->head.size();
      }
      if (it->op && off < it->total())
        iov[n++] = {const_cast<uint8_t*>(it->op->data) + (off - it->head.size()), it->total() - off};
    }
    const ssize_t w = write_locked(fd, iov, n);
    if (w < 0) break;
    auto left = static_cast<size_t>(w);
    while (left > 0) {
      TxItem& t = tx_.front();
      const size_t take = std::min(left, t.total() - t.done);
      t.done += take;
      left -= take;
      if (t.done == t.total()) {
        if (t.op) done->push_back(t.op);
        tx_.pop_front();
      }
    }
  }
  tx_backlog_.store(!tx_.empty(), std::memory_order_relaxed);
  if (tx_.empty()) cv_.notify_all();
}

void TcpLink::cancel(transport::SendOp* op, const Status& why) {
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(tx_mu_);
    for (auto it = tx_.begin(); it != tx_.end(); ++it) {
      if (it->op != op) continue;
      found = true;
      if (it->done == 0) {
        tx_.erase(it);  // nothing of it on the stream yet
      } else {
        // Part is on the stream: the rest goes from a copy, so the stream stays whole and
        // the link no longer reads op->data.
        std::vector<uint8_t> rest;
        rest.reserve(it->total() - it->done);
        if (it->done < it->head.size()) rest.assign(it->head.begin() + static_cast<ptrdiff_t>(it->done), it->head.end());
        const size_t from = it->done > it->head.size() ? it->done - it->head.size() : 0;
        rest.insert(rest.end(), op->data + from, op->data + op->hdr.len);
        *it = TxItem{std::move(rest), nullptr, 0};
      }
      break;
    }
  }
  if (!found) {
    std::lock_guard<std::mutex> lock(tx_mu_);
    for (auto& [seq, t] : await_cts_) {
      if (t.op != op) continue;
      // Its LARGE frame is out: the payload still follows the peer's CTS, from a copy.
      t.head.insert(t.head.end(), op->data, op->data + op->hdr.len);
      t.op = nullptr;
      found = true;
      break;
    }
  }
  if (found) op->complete(why);
}

}  // namespace nexar::tcp
