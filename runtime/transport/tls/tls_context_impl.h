// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Context's private state, shared by the files that implement it.
#pragma once

#include <gnutls/gnutls.h>

#include "transport/tls/tls_context.h"
#include "transport/tls/x509_util.h"

namespace nexar::tls {

// TLS 1.3 only, AES-128-GCM only (ChaCha20 is ~10x slower here), no middlebox
// compatibility mode (QUIC forbids it), P-256 and X25519 key exchange.
inline constexpr const char* kPriority =
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:-GROUP-ALL:+GROUP-SECP256R1:+GROUP-X25519:"
    "%DISABLE_TLS13_COMPAT_MODE";

struct Context::Impl {
  gnutls_certificate_credentials_t cred = nullptr;
  gnutls_priority_t priority = nullptr;
  Identity self;
  std::string source;  // file name, for messages
  Crt ca;              // the job's CA: the only trust anchor
  PeerCheck any_party; // for new_session without a caller-owned check
  ~Impl() {
    if (cred) gnutls_certificate_free_credentials(cred);
    if (priority) gnutls_priority_deinit(priority);
  }
};

// Reads (job id, rank) from a certificate's subject. False when it names no nexar party.
bool identity_of(gnutls_x509_crt_t crt, Identity* out);

}  // namespace nexar::tls
