// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The connect exchange of tcp_auth.h, byte by byte. Little-endian integers.
//   HELLO  "NXT1" u16 version, i32 from, i32 to, i32 world size, nonce[32], u16 n, cert[n]
//   REPLY  "NXT1" nonce[32], u16 n, cert[n], mac[32]
//   PROOF  mac[32]
#include "transport/tcp/tcp_handshake.h"

#include <cstring>

#include "transport/le_bytes.h"

#include "core/log.h"

namespace nexar::tcp {
namespace {

constexpr uint32_t kMagic = 0x3154584e;  // "NXT1"
constexpr uint16_t kVersion = 1;
constexpr size_t kMaxCert = 4096;
constexpr size_t kHelloHead = 4 + 2 + 4 + 4 + 4 + kNonceBytes + 2;
constexpr size_t kReplyHead = 4 + kNonceBytes + 2;

using transport::get_le;
using transport::put_le;
void put_bytes(std::vector<uint8_t>* out, const uint8_t* p, size_t n) { out->insert(out->end(), p, p + n); }

}  // namespace

Handshake::Handshake(const Credential* cred, int world_size, bool dialer, int peer)
    : cred_(cred), world_size_(world_size), dialer_(dialer), peer_(peer), mine_(Credential::fresh_nonce()) {
  if (!dialer_) return;
  put_le(&out_, kMagic);
  put_le(&out_, kVersion);
  put_le(&out_, static_cast<int32_t>(cred_->rank()));
  put_le(&out_, static_cast<int32_t>(peer_));
  put_le(&out_, static_cast<int32_t>(world_size_));
  put_bytes(&out_, mine_.data(), mine_.size());
  put_le(&out_, static_cast<uint16_t>(cred_->cert_der().size()));
  put_bytes(&out_, cred_->cert_der().data(), cred_->cert_der().size());
}

Handshake::State Handshake::fail(nexar_result_t code, const std::string& why) {
  state_ = State::kFailed;
  error_ = Status(code, why);
  return state_;
}

Handshake::State Handshake::on_bytes(const uint8_t* data, size_t n) {
  if (state_ != State::kRunning) return state_;
  in_.insert(in_.end(), data, data + n);
  return step();
}

Handshake::State Handshake::step() {
  if (dialer_) return on_reply();
  return phase_ == 0 ? on_hello() : on_proof();
}

Handshake::State Handshake::on_hello() {
  if (in_.size() >= 4 && get_le<uint32_t>(in_.data()) != kMagic)
    return fail(NEXAR_ERR_PROTOCOL, "not a nexar TCP connection (bad magic)");
  if (in_.size() < kHelloHead) return state_;
  const uint8_t* p = in_.data();
  if (get_le<uint16_t>(p + 4) != kVersion) return fail(NEXAR_ERR_PROTOCOL, "another nexar TCP protocol version");
  const int from = get_le<int32_t>(p + 6), to = get_le<int32_t>(p + 10), world = get_le<int32_t>(p + 14);
  const size_t cert_len = get_le<uint16_t>(p + kHelloHead - 2);
  if (to != cred_->rank()) return fail(NEXAR_ERR_PROTOCOL, strprintf("addressed to rank %d, this is rank %d", to, cred_->rank()));
  if (world != world_size_)
    return fail(NEXAR_ERR_PROTOCOL, strprintf("world size %d, this rank's is %d", world, world_size_));
  if (from <= cred_->rank() || from >= world_size_)
    return fail(NEXAR_ERR_PROTOCOL, strprintf("claims rank %d, which does not dial rank %d", from, cred_->rank()));
  if (cert_len == 0 || cert_len > kMaxCert) return fail(NEXAR_ERR_PROTOCOL, "certificate length out of range");
  peer_ = from;
  if (in_.size() < kHelloHead + cert_len) return state_;
  std::memcpy(theirs_.data(), p + 18, kNonceBytes);
  Status st = cred_->pair_key(p + kHelloHead, cert_len, from, &key_);
  if (!st.ok()) return fail(st.code(), st.message());
  in_.erase(in_.begin(), in_.begin() + static_cast<ptrdiff_t>(kHelloHead + cert_len));
  put_le(&out_, kMagic);
  put_bytes(&out_, mine_.data(), mine_.size());
  put_le(&out_, static_cast<uint16_t>(cred_->cert_der().size()));
  put_bytes(&out_, cred_->cert_der().data(), cred_->cert_der().size());
  const Mac m = cred_->mac(key_, "acceptor", peer_, cred_->rank(), world_size_, theirs_, mine_);
  put_bytes(&out_, m.data(), m.size());
  phase_ = 1;
  return on_proof();
}

Handshake::State Handshake::on_proof() {
  if (in_.size() < kMacBytes) return state_;
  Mac got;
  std::memcpy(got.data(), in_.data(), kMacBytes);
  if (!Credential::equal(got, cred_->mac(key_, "dialer", peer_, cred_->rank(), world_size_, theirs_, mine_)))
    return fail(NEXAR_ERR_AUTH, strprintf("no proof of holding rank %d's key (MAC mismatch)", peer_));
  in_.erase(in_.begin(), in_.begin() + kMacBytes);
  return state_ = State::kDone;
}

Handshake::State Handshake::on_reply() {
  if (in_.size() >= 4 && get_le<uint32_t>(in_.data()) != kMagic)
    return fail(NEXAR_ERR_PROTOCOL, "the peer does not speak nexar TCP (bad magic)");
  if (in_.size() < kReplyHead) return state_;
  const uint8_t* p = in_.data();
  const size_t cert_len = get_le<uint16_t>(p + kReplyHead - 2);
  if (cert_len == 0 || cert_len > kMaxCert) return fail(NEXAR_ERR_PROTOCOL, "certificate length out of range");
  if (in_.size() < kReplyHead + cert_len + kMacBytes) return state_;
  std::memcpy(theirs_.data(), p + 4, kNonceBytes);
  Status st = cred_->pair_key(p + kReplyHead, cert_len, peer_, &key_);
  if (!st.ok()) return fail(st.code(), st.message());
  Mac got;
  std::memcpy(got.data(), p + kReplyHead + cert_len, kMacBytes);
  if (!Credential::equal(got, cred_->mac(key_, "acceptor", cred_->rank(), peer_, world_size_, mine_, theirs_)))
    return fail(NEXAR_ERR_AUTH, strprintf("no proof of holding rank %d's key (MAC mismatch)", peer_));
  in_.erase(in_.begin(), in_.begin() + static_cast<ptrdiff_t>(kReplyHead + cert_len + kMacBytes));
  const Mac m = cred_->mac(key_, "dialer", cred_->rank(), peer_, world_size_, mine_, theirs_);
  put_bytes(&out_, m.data(), m.size());
  return state_ = State::kDone;
}

}  // namespace nexar::tcp
