// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tls/cert_issue.h"

#include <gnutls/crypto.h>

#include <ctime>

#include "transport/tls/cert_names.h"

namespace nexar::tls {
namespace {

constexpr time_t kBackdate = 3600;
constexpr time_t kLifetime = 30 * 24 * 3600;

#define NX_GNUTLS(call, what)                                                           \
  do {                                                                                  \
    int nx_rc_ = (call);                                                                \
    if (nx_rc_ < 0) return gnutls_status(NEXAR_ERR_INTERNAL, what, nx_rc_);             \
  } while (0)

Status new_p256_key(PrivKey* key) {
  NX_GNUTLS(gnutls_x509_privkey_init(&key->h), "allocating a key");
  NX_GNUTLS(gnutls_x509_privkey_generate2(key->h, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1),
                                          0, nullptr, 0),
            "generating an ECDSA P-256 key");
  return Status::Ok();
}

// Version, random positive serial, validity, subject, public key and subject key id.
Status fill_common(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, const std::string& dn) {
  unsigned char serial[16];
  NX_GNUTLS(gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial)), "random serial");
  serial[0] &= 0x7f;  // DER integers are signed: keep the serial positive
  serial[0] |= 0x01;  // and without a leading zero byte
  time_t now = time(nullptr);
  NX_GNUTLS(gnutls_x509_crt_set_version(crt, 3), "certificate version");
  NX_GNUTLS(gnutls_x509_crt_set_serial(crt, serial, sizeof(serial)), "certificate serial");
  NX_GNUTLS(gnutls_x509_crt_set_activation_time(crt, now - kBackdate), "certificate activation time");
  NX_GNUTLS(gnutls_x509_crt_set_expiration_time(crt, now + kLifetime), "certificate expiration time");
  const char* err = nullptr;
  NX_GNUTLS(gnutls_x509_crt_set_dn(crt, dn.c_str(), &err), "certificate subject " + dn);
  NX_GNUTLS(gnutls_x509_crt_set_key(crt, key), "certificate key");
  unsigned char kid[64];
  size_t kidlen = sizeof(kid);
  NX_GNUTLS(gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA1, kid, &kidlen), "key id");
  NX_GNUTLS(gnutls_x509_crt_set_subject_key_id(crt, kid, kidlen), "subject key id");
  return Status::Ok();
}

Status export_key_pem(gnutls_x509_privkey_t key, std::string* out) {
  gnutls_datum_t d{};
  NX_GNUTLS(gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, nullptr, GNUTLS_PKCS_PLAIN, &d),
            "exporting a private key");
  out->assign(reinterpret_cast<const char*>(d.data), d.size);
  gnutls_free(d.data);
  return Status::Ok();
}

// A self-signed CA certificate for out->key: CA:TRUE, keyCertSign + cRLSign.
Status sign_ca(const std::string& job_id, IssuedCa* out) {
  NX_GNUTLS(gnutls_x509_crt_init(&out->crt.h), "allocating a certificate");
  gnutls_x509_crt_t crt = out->crt.h;
  NX_RETURN_IF_ERROR(fill_common(crt, out->key.h, names::ca_dn(job_id)));
  NX_GNUTLS(gnutls_x509_crt_set_basic_constraints(crt, 1, 0), "CA basic constraints");
  NX_GNUTLS(gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN), "CA key usage");
  NX_GNUTLS(gnutls_x509_crt_sign2(crt, crt, out->key.h, GNUTLS_DIG_SHA256, 0), "self-signing the CA");
  return Status::Ok();
}

}  // namespace

Status issue_ca(const std::string& job_id, IssuedCa* out) {
  NX_RETURN_IF_ERROR(new_p256_key(&out->key));
  return sign_ca(job_id, out);
}

Status ca_from_key(const std::string& key_der, const std::string& job_id, IssuedCa* out) {
  NX_GNUTLS(gnutls_x509_privkey_init(&out->key.h), "allocating a key");
  gnutls_datum_t d{reinterpret_cast<unsigned char*>(const_cast<char*>(key_der.data())),
                   static_cast<unsigned>(key_der.size())};
  int rc = gnutls_x509_privkey_import(out->key.h, &d, GNUTLS_X509_FMT_DER);
  if (rc < 0) return gnutls_status(NEXAR_ERR_INVALID_ARGUMENT, "the job's CA key", rc);
  if (gnutls_x509_privkey_get_pk_algorithm(out->key.h) != GNUTLS_PK_ECDSA)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, "the job's CA key is not an ECDSA key");
  return sign_ca(job_id, out);
}

Status export_key_der(const PrivKey& key, std::string* out) {
  gnutls_datum_t d{};
  NX_GNUTLS(gnutls_x509_privkey_export2(key.h, GNUTLS_X509_FMT_DER, &d), "exporting a private key");
  out->assign(reinterpret_cast<const char*>(d.data), d.size);
  gnutls_memset(d.data, 0, d.size);
  gnutls_free(d.data);
  return Status::Ok();
}

Status issue_party_pem(const IssuedCa& ca, const std::string& ca_pem, const std::string& job_id, int rank,
                       std::string* pem) {
  PrivKey key;
  NX_RETURN_IF_ERROR(new_p256_key(&key));
  Crt crt;
  NX_GNUTLS(gnutls_x509_crt_init(&crt.h), "allocating a certificate");
  NX_RETURN_IF_ERROR(fill_common(crt.h, key.h, names::subject_dn(job_id, rank)));
  NX_GNUTLS(gnutls_x509_crt_set_basic_constraints(crt.h, 0, -1), "basic constraints");
  NX_GNUTLS(gnutls_x509_crt_set_key_usage(crt.h, GNUTLS_KEY_DIGITAL_SIGNATURE), "key usage");
  NX_GNUTLS(gnutls_x509_crt_set_key_purpose_oid(crt.h, GNUTLS_KP_TLS_WWW_SERVER, 0), "serverAuth purpose");
  NX_GNUTLS(gnutls_x509_crt_set_key_purpose_oid(crt.h, GNUTLS_KP_TLS_WWW_CLIENT, 0), "clientAuth purpose");
  unsigned char kid[64];
  size_t kidlen = sizeof(kid);
  NX_GNUTLS(gnutls_x509_crt_get_subject_key_id(ca.crt.h, kid, &kidlen, nullptr), "CA key id");
  NX_GNUTLS(gnutls_x509_crt_set_authority_key_id(crt.h, kid, kidlen), "authority key id");
  NX_GNUTLS(gnutls_x509_crt_sign2(crt.h, ca.crt.h, ca.key.h, GNUTLS_DIG_SHA256, 0), "signing a certificate");
  std::string cert_pem, key_pem;
  NX_RETURN_IF_ERROR(export_pem(crt.h, &cert_pem));
  NX_RETURN_IF_ERROR(export_key_pem(key.h, &key_pem));
  *pem = cert_pem + ca_pem + key_pem;
  return Status::Ok();
}

}  // namespace nexar::tls
