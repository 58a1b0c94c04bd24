// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// QuicLink receive side (progress thread): control-stream frames in order, large payloads
// on their own streams, and flow-control credit returned only as the engine accepts data.
#include <algorithm>
#include <cstring>

#include "core/log.h"
#include "transport/quic_link/quic_link.h"

namespace nexar::quic_link {
namespace {
constexpr int64_t kControlStream = 0;    // the client's first bidirectional stream
constexpr size_t kMaxEarly = 64u << 20;  // payload bytes held for a stream not yet announced
bool is_bidi(int64_t sid) { return (sid & 0x2) == 0; }
bool opened_by_server(int64_t sid) { return (sid & 0x1) != 0; }
}  // namespace

Status QuicLink::on_stream_data(quic::Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) {
  if (!is_bidi(sid)) return Status(NEXAR_ERR_PROTOCOL, strprintf("unexpected unidirectional stream %lld", (long long)sid));
  if (sid == kControlStream) {
    if (ctrl_sid_ < 0) {  // server: the client opened it
      ctrl_sid_ = sid;
      conn.schedule_write();
    }
    if (fin) return Status(NEXAR_ERR_PROTOCOL, "control stream finished by the peer");
    return on_control_data(data, len);
  }
  if (opened_by_server(sid) == conn.is_server()) {
    // One of our large-message streams: the peer only finishes its side once it has read all.
    if (len != 0) return Status(NEXAR_ERR_PROTOCOL, "data on the return side of a large-message stream");
    return Status::Ok();
  }
  return on_large_data(sid, data, len, fin);
}

Status QuicLink::on_control_data(const uint8_t* data, size_t len) {
  const uint8_t* p = data;
  size_t avail = len;
  if (!ctrl_rx_.empty()) {
    ctrl_rx_.insert(ctrl_rx_.end(), data, data + len);
    p = ctrl_rx_.data();
    avail = ctrl_rx_.size();
  }
  size_t used = 0;
  while (used < avail) {
    Frame f;
    Status err;
    size_t n = decode_frame(p + used, avail - used, &f, &err);
    if (!err.ok()) return err;
    if (n == 0) break;
    NX_RETURN_IF_ERROR(handle_frame(f));
    bool ok = true;
    if (f.type == FrameType::MSG) ok = sink_->on_message(peer_, f.hdr, f.payload);
    credit(ctrl_sid_, n, ok);
    used += n;
  }
  if (!ctrl_rx_.empty()) {
    ctrl_rx_.erase(ctrl_rx_.begin(), ctrl_rx_.begin() + static_cast<ptrdiff_t>(used));
  } else if (used < avail) {
    ctrl_rx_.assign(p + used, p + avail);
  }
  return Status::Ok();
}

Status QuicLink::on_large_data(int64_t sid, const uint8_t* data, size_t len, bool fin) {
  LargeRx& rx = large_rx_[sid];
  if (!rx.seq_known) {
    size_t take = std::min(len, sizeof(rx.seq_bytes) - rx.seq_have);
    std::memcpy(rx.seq_bytes + rx.seq_have, data, take);
    rx.seq_have += take;
    data += take;
    len -= take;
    credit(sid, take, true);
    if (rx.seq_have < sizeof(rx.seq_bytes)) {
      if (fin) return Status(NEXAR_ERR_PROTOCOL, "large message stream ended inside its header");
      return Status::Ok();
    }
    rx.seq_known = true;
    std::memcpy(&rx.seq, rx.seq_bytes, sizeof(rx.seq));
    auto it = announced_.find(rx.seq);
    if (it != announced_.end()) {
      rx.msg = it->second.msg;
      rx.remaining = it->second.len;
      announced_.erase(it);
    }
  }
  if (!rx.msg) {  // its LARGE frame has not been read yet: hold the bytes, no credit
    if (rx.early.size() + len > kMaxEarly) return Status(NEXAR_ERR_PROTOCOL, "too much unannounced payload");
    rx.early.insert(rx.early.end(), data, data + len);
    return Status::Ok();
  }
  if (len > rx.remaining) return Status(NEXAR_ERR_PROTOCOL, "large message stream carries more than its length");
  if (len) deliver_large(rx, sid, data, len);
  if (rx.remaining == 0) {
    large_rx_.erase(sid);
    finish_stream(sid);
  } else if (fin) {
    return Status(NEXAR_ERR_PROTOCOL, "large message stream ended early");
  }
  return Status::Ok();
}

void QuicLink::deliver_large(LargeRx& rx, int64_t sid, const uint8_t* data, size_t n) {
  rx.remaining -= n;
  transport::InboundMsg* msg = rx.msg;
  if (rx.remaining == 0) rx.msg = nullptr;  // the sink frees it with the last piece
  bool ok = sink_->on_message_data(msg, data, n);
  credit(sid, n, ok);
}

void QuicLink::credit(int64_t sid, size_t n, bool sink_ok) {
  if (n == 0 || !conn_) return;
  if (!sink_ok || !owed_.empty()) {
    owed_.emplace_back(sid, n);
    return;
  }
  conn_->extend_stream_window(sid, n);
  conn_->extend_conn_window(n);
}

void QuicLink::finish_stream(int64_t sid) {
  fin_owed_.push_back(sid);
  if (conn_) conn_->schedule_write();
}

void QuicLink::resume() {
  endpoint_->post([this] { resume_on_progress(); });
}

void QuicLink::resume_on_progress() {
  if (!conn_) return;
  for (auto& [sid, n] : owed_) {
    conn_->extend_stream_window(sid, n);
    conn_->extend_conn_window(n);
  }
  owed_.clear();
}

void QuicLink::on_stream_close(quic::Connection& conn, int64_t sid, uint64_t app_error) {
  auto it = large_rx_.find(sid);
  if (it != large_rx_.end() && (it->second.msg || !it->second.seq_known)) {
    conn.close(1, strprintf("large message stream %lld closed early (code %llu)", (long long)sid,
                            static_cast<unsigned long long>(app_error)));
  }
}

}  // namespace nexar::quic_link
