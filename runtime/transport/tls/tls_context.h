// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The one seam between nexar and its TLS library (GnuTLS). Everything else sees only
// Identity and opaque sessions. QUIC's TLS: TLS 1.3 only, AES-128-GCM only, mutual
// authentication against the job's CA; the peer's identity is read from its certificate.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "transport/tls/credentials.h"

typedef struct gnutls_session_int* gnutls_session_t;

namespace nexar::tls {

class Context;

// What one session's handshake demands of the peer's certificate, checked DURING the
// handshake (a GnuTLS verify function): signed by this job's CA (the only trust anchor),
// naming this job, with the right key purpose, and, when expected_rank is not kAnyParty,
// naming that party. Owned by the caller; must outlive the session it is given to.
struct PeerCheck {
  static constexpr int kAnyParty = -2;
  int expected_rank = kAnyParty;  // a rank, kLauncherRank, or kAnyParty
  std::string failure;            // why the handshake refused the peer (empty otherwise)
  // Set by new_session.
  const Context* context = nullptr;
  bool is_server = false;
  bool record_failure = true;
};

class Context {
 public:
  // Loads a credential file (see credentials.h). NEXAR_ERR_AUTH when it is missing,
  // unreadable, group/world-readable, or malformed.
  static Status load(const std::string& credential_file, std::shared_ptr<Context>* out);
  // The same from a credential's text held in memory (nexar_init_rank issues its own);
  // source names it in messages.
  static Status from_pem(const std::string& pem, const std::string& source, std::shared_ptr<Context>* out);
  ~Context();

  // The identity in this party's own certificate.
  const Identity& self() const;

  // Makes a GnuTLS session for a QUIC connection (client or server) with the priority,
  // credentials and ALPN set, peer-certificate verification required. The caller (the
  // QUIC layer) configures it for ngtcp2 and owns it (gnutls_deinit).
  Status new_session(bool is_server, const std::string& alpn, gnutls_session_t* out) const;
  // The same with a caller-owned check (expected peer, refusal reason) and, for a server,
  // several acceptable ALPNs (a client offers them in order).
  Status new_session(bool is_server, const std::vector<std::string>& alpns, PeerCheck* check,
                     gnutls_session_t* out) const;

  // After the handshake: verifies the peer's chain against the job CA and returns the
  // identity its certificate names. NEXAR_ERR_AUTH (with the reason) otherwise: no
  // certificate, not signed by this job's CA, another job's id.
  Status peer_identity(gnutls_session_t session, Identity* out) const;

  // The ALPN the handshake selected ("" if none).
  static std::string selected_alpn(gnutls_session_t session);

  // Tests: a context that trusts the same CA but presents no certificate of its own.
  std::shared_ptr<Context> without_own_certificate() const;

  // Verifies the peer of session (see PeerCheck); used by the handshake's verify function.
  Status verify_peer(gnutls_session_t session, bool is_server, int expected_rank, Identity* out) const;

  struct Impl;

 private:
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nexar::tls
