// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How a TCP connection between two ranks proves membership of the job (docs/transports.md).
// Every rank holds its rank certificate and private key (ECDSA P-256) and the job CA's
// certificate. Two ranks a and b share a pairwise key nobody else can compute:
//   K(a,b) = HKDF-SHA256(ECDH(priv_a, pub_b) = ECDH(priv_b, pub_a),
//                        salt "nexar-tcp/1", info "<job id> <lower rank> <higher rank>")
// The connect exchange (all of it in the clear; no secret on the wire):
//   dialer -> acceptor  HELLO: magic, version, from, to, world size, nonce_d, cert_d
//   acceptor -> dialer  REPLY: magic, nonce_a, cert_a, MAC(K, "acceptor" | transcript)
//   dialer -> acceptor  PROOF: MAC(K, "dialer" | transcript)
// where each certificate must chain to the job CA and name this job and the claimed rank,
// and transcript = job id, both ranks, world size, both nonces. Each side's MAC over the
// other's fresh nonce proves it holds one of the two private keys.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::tcp {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;
using Nonce = std::array<uint8_t, kNonceBytes>;
using Mac = std::array<uint8_t, kMacBytes>;

class Credential {
 public:
  // The same PEM text nexar's TLS reads: certificate, CA certificate, private key.
  static Status from_pem(const std::string& pem, const std::string& source, std::shared_ptr<Credential>* out);
  static Status load(const std::string& file, std::shared_ptr<Credential>* out);
  ~Credential();

  const std::string& job_id() const { return job_id_; }
  int rank() const { return rank_; }
  const std::vector<uint8_t>& cert_der() const { return cert_der_; }

  // Verifies that der chains to the job CA, is valid now and names this job and
  // `claimed_rank`; then derives K(self, claimed_rank). NEXAR_ERR_AUTH with the reason.
  Status pair_key(const uint8_t* der, size_t n, int claimed_rank, std::array<uint8_t, 32>* key) const;

  static Nonce fresh_nonce();
  // MAC(key, role | job | dialer | acceptor | world size | nonce_d | nonce_a).
  Mac mac(const std::array<uint8_t, 32>& key, const char* role, int dialer, int acceptor, int world_size,
          const Nonce& nd, const Nonce& na) const;
  static bool equal(const Mac& a, const Mac& b);  // constant time

  struct Impl;

 private:
  Credential() = default;
  std::unique_ptr<Impl> impl_;
  std::string job_id_;
  int rank_ = -1;
  std::vector<uint8_t> cert_der_;
};

}  // namespace nexar::tcp
