// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The ngtcp2 callback table of a ConnectionImpl (connection_callbacks.cc).
#pragma once

#include "transport/quic/connection_impl.h"

namespace nexar::quic {

void random_bytes(uint8_t* dest, size_t len);

struct ConnectionImpl::Callbacks {
  static const ngtcp2_callbacks& client();
  static const ngtcp2_callbacks& server();

  static ConnectionImpl* self(void* user_data) { return static_cast<ConnectionImpl*>(user_data); }
  static int handshake_completed(ngtcp2_conn*, void* ud);
  static int handshake_confirmed(ngtcp2_conn*, void* ud);
  static int recv_stream_data(ngtcp2_conn*, uint32_t flags, int64_t sid, uint64_t offset, const uint8_t* data,
                              size_t datalen, void* ud, void* sud);
  static int acked_stream_data_offset(ngtcp2_conn*, int64_t sid, uint64_t offset, uint64_t datalen, void* ud,
                                      void* sud);
  static int stream_close(ngtcp2_conn*, uint32_t flags, int64_t sid, uint64_t app_error, void* ud, void* sud);
  static int stream_reset(ngtcp2_conn*, int64_t sid, uint64_t final_size, uint64_t app_error, void* ud, void* sud);
  static int stream_stop_sending(ngtcp2_conn*, int64_t sid, uint64_t app_error, void* ud, void* sud);
  static int extend_max_local_streams(ngtcp2_conn*, uint64_t max_streams, void* ud);
  static int extend_max_stream_data(ngtcp2_conn*, int64_t sid, uint64_t max_data, void* ud, void* sud);
  static void rand(uint8_t* dest, size_t len, const ngtcp2_rand_ctx*);
  static int get_new_connection_id(ngtcp2_conn*, ngtcp2_cid* cid, uint8_t* token, size_t cidlen, void* ud);
  static int remove_connection_id(ngtcp2_conn*, const ngtcp2_cid* cid, void* ud);
};

}  // namespace nexar::quic
