// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Small RAII holders and helpers for GnuTLS x509 objects, shared by the credential
// generator and the TLS context (the only users of GnuTLS besides ngtcp2's glue).
#pragma once

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <string>

#include "core/status.h"

namespace nexar::tls {

struct Crt {
  gnutls_x509_crt_t h = nullptr;
  Crt() = default;
  Crt(const Crt&) = delete;
  Crt& operator=(const Crt&) = delete;
  ~Crt() {
    if (h) gnutls_x509_crt_deinit(h);
  }
};

struct PrivKey {
  gnutls_x509_privkey_t h = nullptr;
  PrivKey() = default;
  PrivKey(const PrivKey&) = delete;
  PrivKey& operator=(const PrivKey&) = delete;
  ~PrivKey() {
    if (h) gnutls_x509_privkey_deinit(h);
  }
};

// "what: gnutls message" as a Status with the given code.
Status gnutls_status(nexar_result_t code, const std::string& what, int gnutls_rc);

// Reads one DN attribute (e.g. GNUTLS_OID_X520_COMMON_NAME) of a certificate's subject.
std::string subject_attribute(gnutls_x509_crt_t crt, const char* oid);

// Exports crt as PEM text.
Status export_pem(gnutls_x509_crt_t crt, std::string* out);

}  // namespace nexar::tls
