// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The connect proof's cryptography (OpenSSL libcrypto): credential parsing, certificate
// checks against the job CA, ECDH + HKDF for the pairwise key, HMAC-SHA256.
#include "transport/tcp/tcp_auth.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "transport/tls/cert_names.h"

namespace nexar::tcp {
namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using PctxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE, X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX, X509_STORE_CTX_free>>;

Status refuse(const std::string& why) { return Status(NEXAR_ERR_AUTH, why); }

std::string name_entry(X509* crt, int nid) {
  char buf[256];
  const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(crt), nid, buf, sizeof(buf));
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

// (job id, rank) a certificate's subject names; false when it names no rank.
bool identity(X509* crt, std::string* job, int* rank) {
  return tls::names::parse_common_name(name_entry(crt, NID_commonName), rank) && *rank >= 0 &&
         tls::names::parse_organization(name_entry(crt, NID_organizationName), job);
}

}  // namespace

struct Credential::Impl {
  X509Ptr cert, ca;
  PkeyPtr key;
  StorePtr store;
};

Credential::~Credential() = default;

Status Credential::from_pem(const std::string& pem, const std::string& source, std::shared_ptr<Credential>* out) {
  std::shared_ptr<Credential> c(new Credential());
  c->impl_ = std::make_unique<Impl>();
  auto read = [&](auto fn) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return bio ? fn(bio.get()) : nullptr;
  };
  // certificate, CA certificate, private key (credentials.h)
  BioPtr certs(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (certs) {
    c->impl_->cert.reset(PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr));
    c->impl_->ca.reset(PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr));
  }
  c->impl_->key.reset(read([](BIO* b) { return PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr); }));
  if (!c->impl_->cert || !c->impl_->ca || !c->impl_->key)
    return refuse(source + ": expected a certificate, the CA certificate and a private key (PEM)");
  if (!identity(c->impl_->cert.get(), &c->job_id_, &c->rank_)) return refuse(source + ": the certificate names no rank");
  unsigned char* der = nullptr;
  const int n = i2d_X509(c->impl_->cert.get(), &der);
  if (n <= 0) return refuse(source + ": cannot encode the certificate");
  c->cert_der_.assign(der, der + n);
  OPENSSL_free(der);
  c->impl_->store.reset(X509_STORE_new());
  if (!c->impl_->store || X509_STORE_add_cert(c->impl_->store.get(), c->impl_->ca.get()) != 1)
    return refuse(source + ": cannot use the CA certificate");
  *out = std::move(c);
  return Status::Ok();
}

Status Credential::load(const std::string& file, std::shared_ptr<Credential>* out) {
  std::ifstream in(file);
  if (!in) return refuse("cannot read the credential " + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return from_pem(ss.str(), file, out);
}

Status Credential::pair_key(const uint8_t* der, size_t n, int claimed_rank, std::array<uint8_t, 32>* key) const {
  const unsigned char* p = der;
  X509Ptr peer(d2i_X509(nullptr, &p, static_cast<long>(n)));
  if (!peer || p != der + n) return refuse("the certificate does not parse");
  StoreCtxPtr vctx(X509_STORE_CTX_new());
  if (!vctx || X509_STORE_CTX_init(vctx.get(), impl_->store.get(), peer.get(), nullptr) != 1)
    return refuse("cannot set up certificate verification");
  if (X509_verify_cert(vctx.get()) != 1)
    return refuse(std::string("certificate rejected (") +
                  X509_verify_cert_error_string(X509_STORE_CTX_get_error(vctx.get())) + "); trust anchor: the CA of job " +
                  job_id_);
  std::string job;
  int rank = -1;
  if (!identity(peer.get(), &job, &rank)) return refuse("the certificate names no rank");
  if (job != job_id_) return refuse("the certificate is for job " + job + ", this is job " + job_id_);
  if (rank != claimed_rank)
    return refuse("the certificate is rank " + std::to_string(rank) + "'s, the peer claims rank " +
                  std::to_string(claimed_rank));
  // ECDH(own private key, peer's public key), then HKDF to a key bound to job and pair.
  uint8_t shared[66];
  size_t shared_len = sizeof(shared);
  PctxPtr dh(EVP_PKEY_CTX_new(impl_->key.get(), nullptr));
  if (!dh || EVP_PKEY_derive_init(dh.get()) != 1 ||
      EVP_PKEY_derive_set_peer(dh.get(), X509_get0_pubkey(peer.get())) != 1 ||
      EVP_PKEY_derive(dh.get(), shared, &shared_len) != 1)
    return refuse("key agreement with the certificate's key failed");
  const std::string info =
      job_id_ + " " + std::to_string(std::min(rank_, rank)) + " " + std::to_string(std::max(rank_, rank));
  static const char kSalt[] = "nexar-tcp/1";
  PctxPtr kdf(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr));
  size_t key_len = key->size();
  const bool ok = kdf && EVP_PKEY_derive_init(kdf.get()) == 1 && EVP_PKEY_CTX_set_hkdf_md(kdf.get(), EVP_sha256()) == 1 &&
                  EVP_PKEY_CTX_set1_hkdf_salt(kdf.get(), reinterpret_cast<const unsigned char*>(kSalt),
                                              sizeof(kSalt) - 1) == 1 &&
                  EVP_PKEY_CTX_set1_hkdf_key(kdf.get(), shared, static_cast<int>(shared_len)) == 1 &&
                  EVP_PKEY_CTX_add1_hkdf_info(kdf.get(), reinterpret_cast<const unsigned char*>(info.data()),
                                              static_cast<int>(info.size())) == 1 &&
                  EVP_PKEY_derive(kdf.get(), key->data(), &key_len) == 1;
  OPENSSL_cleanse(shared, sizeof(shared));
  if (!ok || key_len != key->size()) return refuse("deriving the pairwise key failed");
  return Status::Ok();
}

Nonce Credential::fresh_nonce() {
  Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) std::abort();  // no randomness: nothing is safe
  return n;
}

Mac Credential::mac(const std::array<uint8_t, 32>& key, const char* role, int dialer, int acceptor, int world_size,
                    const Nonce& nd, const Nonce& na) const {
  std::string msg = std::string(role) + '\0' + job_id_ + '\0' + std::to_string(dialer) + ' ' +
                    std::to_string(acceptor) + ' ' + std::to_string(world_size) + '\0';
  msg.append(reinterpret_cast<const char*>(nd.data()), nd.size());
  msg.append(reinterpret_cast<const char*>(na.data()), na.size());
  Mac out{};
  unsigned len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(msg.data()),
       msg.size(), out.data(), &len);
  return out;
}

bool Credential::equal(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace nexar::tcp
