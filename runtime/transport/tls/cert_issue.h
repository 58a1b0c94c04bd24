// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Issuing the job's certificates: a self-signed CA and leaf certificates for each party,
// all ECDSA P-256 / SHA-256, valid from one hour ago for 30 days.
#pragma once

#include <string>

#include "core/status.h"
#include "transport/tls/x509_util.h"

namespace nexar::tls {

struct IssuedCa {
  Crt crt;
  PrivKey key;
};

// A fresh CA for job_id: CA:TRUE, keyCertSign + cRLSign.
Status issue_ca(const std::string& job_id, IssuedCa* out);

// A CA for job_id around an existing key (DER, as export_key_der writes it): whoever holds
// the key can issue the job's credentials (nexar_init_rank: the key travels in the unique id).
// NEXAR_ERR_INVALID_ARGUMENT when key_der is not an ECDSA key.
Status ca_from_key(const std::string& key_der, const std::string& job_id, IssuedCa* out);
Status export_key_der(const PrivKey& key, std::string* out);

// A leaf certificate for (job_id, rank) signed by ca: CA:FALSE, digitalSignature,
// serverAuth + clientAuth. *pem gets "cert PEM + CA PEM + PKCS#8 key PEM".
Status issue_party_pem(const IssuedCa& ca, const std::string& ca_pem, const std::string& job_id, int rank,
                       std::string* pem);

}  // namespace nexar::tls
