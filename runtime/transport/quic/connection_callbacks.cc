// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic/connection_callbacks.h"

#include <ngtcp2/ngtcp2_crypto.h>

#include <algorithm>

#include "core/log.h"
#include "transport/quic/endpoint_impl.h"

namespace nexar::quic {
namespace {

ngtcp2_callbacks common_table() {
  ngtcp2_callbacks cb{};
  using C = ConnectionImpl::Callbacks;
  cb.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
  cb.encrypt = ngtcp2_crypto_encrypt_cb;
  cb.decrypt = ngtcp2_crypto_decrypt_cb;
  cb.hp_mask = ngtcp2_crypto_hp_mask_cb;
  cb.update_key = ngtcp2_crypto_update_key_cb;
  cb.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
  cb.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
  cb.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
  cb.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
  cb.handshake_completed = C::handshake_completed;
  cb.handshake_confirmed = C::handshake_confirmed;
  cb.recv_stream_data = C::recv_stream_data;
  cb.acked_stream_data_offset = C::acked_stream_data_offset;
  cb.stream_close = C::stream_close;
  cb.stream_reset = C::stream_reset;
  cb.stream_stop_sending = C::stream_stop_sending;
  cb.extend_max_local_streams_bidi = C::extend_max_local_streams;
  cb.extend_max_local_streams_uni = C::extend_max_local_streams;
  cb.extend_max_stream_data = C::extend_max_stream_data;
  cb.rand = C::rand;
  cb.get_new_connection_id = C::get_new_connection_id;
  cb.remove_connection_id = C::remove_connection_id;
  return cb;
}

}  // namespace

const ngtcp2_callbacks& ConnectionImpl::Callbacks::client() {
  static const ngtcp2_callbacks table = [] {
    ngtcp2_callbacks cb = common_table();
    cb.client_initial = ngtcp2_crypto_client_initial_cb;
    cb.recv_retry = ngtcp2_crypto_recv_retry_cb;
    return cb;
  }();
  return table;
}

const ngtcp2_callbacks& ConnectionImpl::Callbacks::server() {
  static const ngtcp2_callbacks table = [] {
    ngtcp2_callbacks cb = common_table();
    cb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
    return cb;
  }();
  return table;
}

// Server: the client's Finished arrived, its certificate was verified during the
// handshake. Hand the connection to the accept handler now, before any stream data that
// may follow in the same datagram.
int ConnectionImpl::Callbacks::handshake_completed(ngtcp2_conn*, void* ud) {
  ConnectionImpl* c = self(ud);
  if (c->is_server_) c->handshake_done();
  return 0;
}

// Client: the server confirmed the handshake (HANDSHAKE_DONE), which it sends only after
// verifying our certificate; no application data flows before this point.
int ConnectionImpl::Callbacks::handshake_confirmed(ngtcp2_conn*, void* ud) {
  ConnectionImpl* c = self(ud);
  if (!c->is_server_) c->handshake_done();
  return 0;
}

int ConnectionImpl::Callbacks::recv_stream_data(ngtcp2_conn*, uint32_t flags, int64_t sid, uint64_t, const uint8_t* data,
                                                size_t datalen, void* ud, void*) {
  ConnectionImpl* c = self(ud);
  if (c->app_ == nullptr || !c->connected_ || c->close_) return 0;  // closing: drop
  Status st = c->app_->on_stream_data(*c, sid, data, datalen, (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0);
  if (!st.ok()) {
    NX_WARN(NET, "closing connection to %s: stream %lld: %s", c->who().c_str(), static_cast<long long>(sid),
            st.to_string().c_str());
    c->close(1, st.message());
    c->close_->outcome = st;
  }
  return 0;
}

int ConnectionImpl::Callbacks::acked_stream_data_offset(ngtcp2_conn*, int64_t sid, uint64_t, uint64_t datalen,
                                                        void* ud, void*) {
  ConnectionImpl* c = self(ud);
  if (c->app_ != nullptr && datalen > 0) c->app_->on_acked(*c, sid, datalen);
  return 0;
}

int ConnectionImpl::Callbacks::stream_close(ngtcp2_conn* conn, uint32_t flags, int64_t sid, uint64_t app_error,
                                            void* ud, void*) {
  ConnectionImpl* c = self(ud);
  if (!ngtcp2_conn_is_local_stream(conn, sid)) {
    // The peer may open one more stream of this kind.
    if (ngtcp2_is_bidi_stream(sid))
      ngtcp2_conn_extend_max_streams_bidi(conn, 1);
    else
      ngtcp2_conn_extend_max_streams_uni(conn, 1);
  }
  uint64_t code = (flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) ? app_error : 0;
  if (c->close_notified_.erase(sid) == 0 && c->app_ != nullptr && c->connected_)
    c->app_->on_stream_close(*c, sid, code);
  return 0;
}

int ConnectionImpl::Callbacks::stream_reset(ngtcp2_conn*, int64_t sid, uint64_t, uint64_t app_error, void* ud,
                                            void*) {
  ConnectionImpl* c = self(ud);
  if (c->app_ != nullptr && c->connected_ && c->close_notified_.insert(sid).second)
    c->app_->on_stream_close(*c, sid, app_error);
  return 0;
}

int ConnectionImpl::Callbacks::stream_stop_sending(ngtcp2_conn* conn, int64_t sid, uint64_t app_error, void* ud,
                                                   void* sud) {
  return stream_reset(conn, sid, 0, app_error, ud, sud);
}

int ConnectionImpl::Callbacks::extend_max_local_streams(ngtcp2_conn*, uint64_t, void* ud) {
  ConnectionImpl* c = self(ud);
  if (c->app_ != nullptr && c->connected_) c->app_->on_streams_available(*c);
  return 0;
}

int ConnectionImpl::Callbacks::extend_max_stream_data(ngtcp2_conn*, int64_t sid, uint64_t, void* ud, void*) {
  ConnectionImpl* c = self(ud);
  if (c->app_ != nullptr && c->connected_) c->app_->on_stream_writable(*c, sid);
  c->schedule_write();
  return 0;
}

void ConnectionImpl::Callbacks::rand(uint8_t* dest, size_t len, const ngtcp2_rand_ctx*) { random_bytes(dest, len); }

int ConnectionImpl::Callbacks::get_new_connection_id(ngtcp2_conn*, ngtcp2_cid* cid, uint8_t* token, size_t cidlen,
                                                     void* ud) {
  ConnectionImpl* c = self(ud);
  cid->datalen = std::min<size_t>(cidlen, NGTCP2_MAX_CIDLEN);
  random_bytes(cid->data, cid->datalen);
  random_bytes(token, NGTCP2_STATELESS_RESET_TOKENLEN);
  c->ep_->add_cid(cid->data, cid->datalen, c);
  return 0;
}

int ConnectionImpl::Callbacks::remove_connection_id(ngtcp2_conn*, const ngtcp2_cid* cid, void* ud) {
  self(ud)->ep_->remove_cid(cid->data, cid->datalen);
  return 0;
}

}  // namespace nexar::quic
