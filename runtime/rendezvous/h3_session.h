// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// HTTP/3 over one nexar QUIC connection: the nghttp3 glue shared by the rendezvous'
// server and client. It maps the QUIC layer's pull-model Application callbacks onto
// nghttp3 (next_write -> writev_stream, on_written -> add_write_offset, on_acked ->
// add_ack_offset, on_blocked/on_stream_writable -> block/unblock, on_stream_data ->
// read_stream plus flow-control credit), opens the control and QPACK streams, and hands
// subclasses decoded messages: header fields, body bytes, end of message, stream closed.
// Everything runs on the endpoint's progress thread.
#pragma once

#include <nghttp3/nghttp3.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transport/quic/connection.h"

namespace nexar::rendezvous {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class H3Session : public quic::Application {
 public:
  ~H3Session() override;
  H3Session(const H3Session&) = delete;
  H3Session& operator=(const H3Session&) = delete;

  // Creates the nghttp3 connection and opens and binds the control and QPACK encoder and
  // decoder streams. Idempotent; errors close the connection.
  Status start(quic::Connection& conn);

  void on_connected(quic::Connection& conn) override;
  Status on_stream_data(quic::Connection& conn, int64_t sid, const uint8_t* data, size_t len, bool fin) override;
  void on_stream_close(quic::Connection& conn, int64_t sid, uint64_t app_error) override;
  void on_acked(quic::Connection& conn, int64_t sid, uint64_t datalen) override;
  void on_stream_writable(quic::Connection& conn, int64_t sid) override;
  size_t next_write(quic::Connection& conn, int64_t* sid, ngtcp2_vec* vecs, size_t max_vecs, bool* fin) override;
  void on_written(quic::Connection& conn, int64_t sid, size_t n, bool fin_taken) override;
  void on_blocked(quic::Connection& conn, int64_t sid) override;

  // The connection while it is up (after start, before mark_closed), else nullptr.
  quic::Connection* conn() const { return closed_ ? nullptr : conn_; }

 protected:
  explicit H3Session(bool is_server);

  // Subclass hooks, called while nghttp3 decodes a stream.
  virtual void on_header(int64_t sid, std::string_view name, std::string_view value) = 0;
  virtual void on_body(int64_t sid, const uint8_t* data, size_t len) = 0;
  virtual void on_message_end(int64_t sid) = 0;
  // The stream is gone (both ways done, or reset); app_error is the HTTP/3 code.
  virtual void on_message_closed(int64_t sid, uint64_t app_error) = 0;
  // The session is ready for requests (client) after start().
  virtual void on_started() {}

  // Sends a message on sid: the request (client) or response (server) header fields, and
  // body as one DATA frame unless empty; the stream's sending side ends after it. The
  // body is kept until the stream closes. Schedules a write.
  Status submit(int64_t sid, const HeaderList& headers, std::string body);

  // Resets stream sid both ways (e.g. a client giving up on a request).
  void reset_stream(int64_t sid, uint64_t app_error);

  // Closes the connection with an HTTP/3 error code derived from an nghttp3 error.
  void fail(int liberr, const char* where);

  // From on_closed: the QUIC connection is gone; every entry point becomes a no-op. The
  // nghttp3 state is freed with the object (a callback may still be on the stack).
  void mark_closed() { closed_ = true; }
  bool closed() const { return closed_; }

 private:
  struct OutBody {
    std::string data;
    bool handed_out = false;
  };
  static const nghttp3_callbacks& callbacks();
  // nghttp3 callback trampolines.
  static int cb_recv_header(nghttp3_conn*, int64_t sid, int32_t, nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                            uint8_t, void* self, void*);
  static int cb_recv_data(nghttp3_conn*, int64_t sid, const uint8_t* data, size_t len, void* self, void*);
  static int cb_deferred_consume(nghttp3_conn*, int64_t sid, size_t n, void* self, void*);
  static int cb_end_stream(nghttp3_conn*, int64_t sid, void* self, void*);
  static int cb_stream_close(nghttp3_conn*, int64_t sid, uint64_t app_error, void* self, void*);
  static int cb_reset_stream(nghttp3_conn*, int64_t sid, uint64_t app_error, void* self, void*);
  static nghttp3_ssize cb_read_data(nghttp3_conn*, int64_t sid, nghttp3_vec* vec, size_t veccnt, uint32_t* flags,
                                    void* self, void*);
  void consumed(int64_t sid, size_t n);
  bool live() const { return h3_ != nullptr && !closed_; }

  const bool is_server_;
  quic::Connection* conn_ = nullptr;
  nghttp3_conn* h3_ = nullptr;
  bool closed_ = false;
  std::unordered_map<int64_t, std::unique_ptr<OutBody>> bodies_;
};

}  // namespace nexar::rendezvous
