// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The bytes of a nexar_unique_id_t (nexar_get_unique_id / nexar_init_rank): what a process
// needs to join a job started without nexrun. 512 bytes:
//   [0, 8)     "NEXARID" and the format version (1)
//   [8, 40)    SHA-256 of bytes [40, 512): a garbled or truncated id is refused by name
//   [40]       job id length, then the job id (at most 64 bytes)
//   [105]      rendezvous address length, then "ip:port" (at most 64 bytes)
//   [170, 172) length of the job CA's private key (big-endian), then its DER
//   the rest   zero
// The CA key is the job's secret: a process holding it issues its own rank certificate,
// and every peer verifies it against the CA made from the same key (mutual TLS as under
// nexrun). Whoever has the id can join.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"

namespace nexar::bootstrap {

inline constexpr size_t kUniqueIdBytes = 512;

struct UniqueId {
  std::string job_id;
  std::string rendezvous;  // "ip:port"
  std::string ca_key_der;  // the job's secret
};

// NEXAR_ERR_INVALID_ARGUMENT when a field does not fit.
Status encode_unique_id(const UniqueId& id, unsigned char out[kUniqueIdBytes]);
// NEXAR_ERR_INVALID_ARGUMENT naming what is wrong: not an id (magic), another format
// version, garbled (checksum), or a field out of range.
Status decode_unique_id(const unsigned char in[kUniqueIdBytes], UniqueId* out);

}  // namespace nexar::bootstrap
