// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Verification of the peer's certificate: chain to the job CA, key purpose, job, party.
#include <gnutls/x509.h>

#include "transport/tls/cert_names.h"
#include "transport/tls/tls_context_impl.h"

namespace nexar::tls {
namespace {

std::string party_name(int rank) {
  if (rank == kLauncherRank) return "the launcher";
  return "rank " + std::to_string(rank);
}

Status refuse(const std::string& why) { return Status(NEXAR_ERR_AUTH, why); }

}  // namespace

bool identity_of(gnutls_x509_crt_t crt, Identity* out) {
  Identity id;
  if (!names::parse_common_name(subject_attribute(crt, GNUTLS_OID_X520_COMMON_NAME), &id.rank)) return false;
  if (!names::parse_organization(subject_attribute(crt, GNUTLS_OID_X520_ORGANIZATION_NAME), &id.job_id))
    return false;
  *out = std::move(id);
  return true;
}

Status Context::verify_peer(gnutls_session_t session, bool is_server, int expected_rank, Identity* out) const {
  unsigned n = 0;
  const gnutls_datum_t* certs = gnutls_certificate_get_peers(session, &n);
  if (certs == nullptr || n == 0) return refuse("peer presented no certificate");
  // A server checks its clients for clientAuth, a client its server for serverAuth.
  const char* purpose = is_server ? GNUTLS_KP_TLS_WWW_CLIENT : GNUTLS_KP_TLS_WWW_SERVER;
  gnutls_typed_vdata_st vdata{GNUTLS_DT_KEY_PURPOSE_OID,
                              reinterpret_cast<unsigned char*>(const_cast<char*>(purpose)), 0};
  unsigned status = 0;
  int rc = gnutls_certificate_verify_peers(session, &vdata, 1, &status);
  if (rc < 0) return refuse(std::string("verifying the peer's certificate: ") + gnutls_strerror(rc));
  if (status != 0) {
    gnutls_datum_t text{};
    std::string why = "peer certificate rejected";
    if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) >= 0) {
      why += std::string(" (") + reinterpret_cast<const char*>(text.data) + ")";
      gnutls_free(text.data);
    }
    return refuse(why + "; trust anchor: the CA of job " + impl_->self.job_id);
  }
  Crt crt;
  if (gnutls_x509_crt_init(&crt.h) < 0 || gnutls_x509_crt_import(crt.h, &certs[0], GNUTLS_X509_FMT_DER) < 0)
    return refuse("peer certificate does not parse");
  Identity peer;
  if (!identity_of(crt.h, &peer)) return refuse("peer certificate names no nexar job and party");
  if (peer.job_id != impl_->self.job_id)
    return refuse("peer certificate is for job " + peer.job_id + ", this is job " + impl_->self.job_id);
  if (expected_rank != PeerCheck::kAnyParty && peer.rank != expected_rank)
    return refuse("peer is " + party_name(peer.rank) + ", expected " + party_name(expected_rank));
  *out = std::move(peer);
  return Status::Ok();
}

Status Context::peer_identity(gnutls_session_t session, Identity* out) const {
  auto* check = static_cast<const PeerCheck*>(gnutls_db_get_ptr(session));
  if (check == nullptr || check->context != this) return refuse("TLS session was not made by this context");
  return verify_peer(session, check->is_server, PeerCheck::kAnyParty, out);
}

}  // namespace nexar::tls
