// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/unique_id.h"

#include <gnutls/crypto.h>

#include <cstring>

#include "transport/tls/cert_names.h"

namespace nexar::bootstrap {
namespace {

constexpr char kMagic[] = "NEXARID";  // followed by the version byte
constexpr unsigned char kVersion = 1;
constexpr size_t kSumAt = 8, kSumBytes = 32, kJobAt = 40, kAddrAt = 105, kKeyAt = 170;
constexpr size_t kMaxField = 64, kMaxKey = kUniqueIdBytes - kKeyAt - 2;

Status checksum(const unsigned char* id, unsigned char sum[kSumBytes]) {
  const size_t body = kSumAt + kSumBytes;
  if (gnutls_hash_fast(GNUTLS_DIG_SHA256, id + body, kUniqueIdBytes - body, sum) < 0)
    return Status(NEXAR_ERR_INTERNAL, "SHA-256 of the unique id failed");
  return Status::Ok();
}

Status bad(const std::string& why) {
  return Status(NEXAR_ERR_INVALID_ARGUMENT, "the unique id " + why + " (pass the bytes nexar_get_unique_id wrote, all 512)");
}

}  // namespace

Status encode_unique_id(const UniqueId& id, unsigned char out[kUniqueIdBytes]) {
  if (id.job_id.empty() || id.job_id.size() > kMaxField || id.rendezvous.empty() || id.rendezvous.size() > kMaxField ||
      id.ca_key_der.empty() || id.ca_key_der.size() > kMaxKey)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "unique id fields out of range");
  std::memset(out, 0, kUniqueIdBytes);
  std::memcpy(out, kMagic, 7);
  out[7] = kVersion;
  out[kJobAt] = static_cast<unsigned char>(id.job_id.size());
  std::memcpy(out + kJobAt + 1, id.job_id.data(), id.job_id.size());
  out[kAddrAt] = static_cast<unsigned char>(id.rendezvous.size());
  std::memcpy(out + kAddrAt + 1, id.rendezvous.data(), id.rendezvous.size());
  out[kKeyAt] = static_cast<unsigned char>(id.ca_key_der.size() >> 8);
  out[kKeyAt + 1] = static_cast<unsigned char>(id.ca_key_der.size() & 0xff);
  std::memcpy(out + kKeyAt + 2, id.ca_key_der.data(), id.ca_key_der.size());
  return checksum(out, out + kSumAt);
}

Status decode_unique_id(const unsigned char in[kUniqueIdBytes], UniqueId* out) {
  if (std::memcmp(in, kMagic, 7) != 0) return bad("is not one: it does not start with NEXARID");
  if (in[7] != kVersion) return bad(strprintf("has format version %u; this libnexar reads version %u", in[7], kVersion));
  unsigned char sum[kSumBytes];
  NX_RETURN_IF_ERROR(checksum(in, sum));
  if (std::memcmp(sum, in + kSumAt, kSumBytes) != 0) return bad("is garbled: its checksum does not match its bytes");
  UniqueId id;
  const size_t job_len = in[kJobAt], addr_len = in[kAddrAt];
  const size_t key_len = (static_cast<size_t>(in[kKeyAt]) << 8) | in[kKeyAt + 1];
  if (job_len == 0 || job_len > kMaxField || addr_len == 0 || addr_len > kMaxField || key_len == 0 || key_len > kMaxKey)
    return bad("has fields out of range");
  id.job_id.assign(reinterpret_cast<const char*>(in + kJobAt + 1), job_len);
  id.rendezvous.assign(reinterpret_cast<const char*>(in + kAddrAt + 1), addr_len);
  id.ca_key_der.assign(reinterpret_cast<const char*>(in + kKeyAt + 2), key_len);
  if (!tls::names::valid_job_id(id.job_id)) return bad("names an invalid job id");
  *out = std::move(id);
  return Status::Ok();
}

}  // namespace nexar::bootstrap
