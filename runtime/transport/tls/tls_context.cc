// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tls/tls_context.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "transport/tls/cert_names.h"
#include "transport/tls/tls_context_impl.h"

namespace nexar::tls {
namespace {

constexpr off_t kMaxFileSize = 1 << 20;

Status auth_error(const std::string& file, const std::string& what) {
  return Status(NEXAR_ERR_AUTH, "credential file " + file + ": " + what);
}

Status read_private_file(const std::string& path, std::string* text) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return auth_error(path, std::strerror(errno));
  struct stat st {};
  Status result;
  if (::fstat(fd, &st) != 0) {
    result = auth_error(path, std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    result = auth_error(path, "not a regular file");
  } else if ((st.st_mode & 077) != 0) {
    result = auth_error(path, strprintf("mode %04o lets group or others read it (must be 0600)",
                                        static_cast<unsigned>(st.st_mode & 07777)));
  } else if (st.st_size <= 0 || st.st_size > kMaxFileSize) {
    result = auth_error(path, strprintf("size %lld is not that of a credential", static_cast<long long>(st.st_size)));
  } else {
    text->resize(static_cast<size_t>(st.st_size));
    size_t off = 0;
    while (off < text->size()) {
      ssize_t n = ::read(fd, text->data() + off, text->size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        result = auth_error(path, n == 0 ? "shorter than its size" : std::strerror(errno));
        break;
      }
      off += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return result;
}

// Splits the file's certificates: [0] own, [1] the CA. Checks that own is signed by the CA,
// that the CA is a CA, and that both name the same job.
Status parse_chain(const std::string& file, const gnutls_datum_t& data, Context::Impl* impl, Identity* self) {
  gnutls_x509_crt_t* list = nullptr;
  unsigned n = 0;
  int rc = gnutls_x509_crt_list_import2(&list, &n, &data, GNUTLS_X509_FMT_PEM, 0);
  if (rc < 0) return auth_error(file, std::string("no certificates: ") + gnutls_strerror(rc));
  Crt own;
  own.h = list[0];
  if (n >= 2) impl->ca.h = list[1];
  for (unsigned i = 2; i < n; ++i) gnutls_x509_crt_deinit(list[i]);
  gnutls_free(list);
  if (n < 2) return auth_error(file, "holds 1 certificate, expected its own and the CA's");
  unsigned is_ca = 0;
  if (gnutls_x509_crt_get_basic_constraints(impl->ca.h, nullptr, &is_ca, nullptr) < 0 || !is_ca)
    return auth_error(file, "second certificate is not a CA");
  unsigned status = 0;
  rc = gnutls_x509_crt_verify(own.h, &impl->ca.h, 1, 0, &status);
  if (rc < 0 || status != 0) return auth_error(file, "own certificate is not signed by the CA in the file");
  if (!identity_of(own.h, self)) return auth_error(file, "own certificate names no nexar job and party");
  std::string ca_job;
  if (!names::parse_organization(subject_attribute(impl->ca.h, GNUTLS_OID_X520_ORGANIZATION_NAME), &ca_job) ||
      ca_job != self->job_id)
    return auth_error(file, "CA certificate is not job " + self->job_id + "'s");
  return Status::Ok();
}

Status init_common(const std::string& file, Context::Impl* impl) {
  int rc = gnutls_certificate_allocate_credentials(&impl->cred);
  if (rc < 0) return gnutls_status(NEXAR_ERR_SYSTEM, "allocating TLS credentials", rc);
  rc = gnutls_certificate_set_x509_trust(impl->cred, &impl->ca.h, 1);
  if (rc < 0) return gnutls_status(NEXAR_ERR_AUTH, "credential file " + file + ": trusting its CA", rc);
  const char* err = nullptr;
  rc = gnutls_priority_init(&impl->priority, kPriority, &err);
  if (rc < 0) return gnutls_status(NEXAR_ERR_INTERNAL, std::string("TLS priority at '") + (err ? err : "") + "'", rc);
  return Status::Ok();
}

}  // namespace

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->any_party.context = this;
  impl_->any_party.record_failure = false;
}
Context::~Context() = default;

const Identity& Context::self() const { return impl_->self; }

Status Context::load(const std::string& credential_file, std::shared_ptr<Context>* out) {
  std::string text;
  NX_RETURN_IF_ERROR(read_private_file(credential_file, &text));
  Status st = from_pem(text, credential_file, out);
  std::memset(text.data(), 0, text.size());
  return st;
}

Status Context::from_pem(const std::string& pem, const std::string& source, std::shared_ptr<Context>* out) {
  auto impl = std::make_unique<Impl>();
  impl->source = source;
  std::string text = pem;  // GnuTLS wants a mutable datum
  gnutls_datum_t data{reinterpret_cast<unsigned char*>(text.data()), static_cast<unsigned>(text.size())};
  NX_RETURN_IF_ERROR(parse_chain(source, data, impl.get(), &impl->self));
  NX_RETURN_IF_ERROR(init_common(source, impl.get()));
  // The same text as certificate chain and key file, as gtlsclient --cert=F --key=F does.
  int rc = gnutls_certificate_set_x509_key_mem2(impl->cred, &data, &data, GNUTLS_X509_FMT_PEM, nullptr, 0);
  std::memset(text.data(), 0, text.size());
  if (rc < 0) return gnutls_status(NEXAR_ERR_AUTH, "credential file " + source + ": key", rc);
  NX_TRACE(TLS, "loaded %s: %s", source.c_str(), impl->self.to_string().c_str());
  out->reset(new Context(std::move(impl)));
  return Status::Ok();
}

std::shared_ptr<Context> Context::without_own_certificate() const {
  auto impl = std::make_unique<Impl>();
  impl->source = impl_->source + " (without its certificate)";
  impl->self = impl_->self;
  if (gnutls_x509_crt_init(&impl->ca.h) < 0) return nullptr;
  gnutls_datum_t der{};
  if (gnutls_x509_crt_export2(impl_->ca.h, GNUTLS_X509_FMT_DER, &der) < 0) return nullptr;
  int rc = gnutls_x509_crt_import(impl->ca.h, &der, GNUTLS_X509_FMT_DER);
  gnutls_free(der.data);
  if (rc < 0 || !init_common(impl->source, impl.get()).ok()) return nullptr;
  return std::shared_ptr<Context>(new Context(std::move(impl)));
}

Status Context::new_session(bool is_server, const std::string& alpn, gnutls_session_t* out) const {
  return new_session(is_server, std::vector<std::string>{alpn}, &impl_->any_party, out);
}

Status Context::new_session(bool is_server, const std::vector<std::string>& alpns, PeerCheck* check,
                            gnutls_session_t* out) const {
  if (alpns.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "TLS session without an ALPN");
  gnutls_session_t s = nullptr;
  int rc = gnutls_init(&s, is_server ? (GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET) : GNUTLS_CLIENT);
  if (rc < 0) return gnutls_status(NEXAR_ERR_SYSTEM, "TLS session", rc);
  std::vector<gnutls_datum_t> protos;
  for (const auto& a : alpns)
    protos.push_back({reinterpret_cast<unsigned char*>(const_cast<char*>(a.data())), static_cast<unsigned>(a.size())});
  if ((rc = gnutls_priority_set(s, impl_->priority)) < 0 ||
      (rc = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, impl_->cred)) < 0 ||
      (rc = gnutls_alpn_set_protocols(s, protos.data(), static_cast<unsigned>(protos.size()),
                                      GNUTLS_ALPN_MANDATORY)) < 0) {
    gnutls_deinit(s);
    return gnutls_status(NEXAR_ERR_INTERNAL, "configuring a TLS session", rc);
  }
  if (is_server) gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
  check->context = this;
  check->is_server = is_server;
  // ngtcp2 owns gnutls_session_set_ptr; the session-database pointer is unused without
  // resumption, so it carries the check to the verify function.
  gnutls_db_set_ptr(s, check);
  gnutls_session_set_verify_function(s, [](gnutls_session_t session) -> int {
    auto* c = static_cast<PeerCheck*>(gnutls_db_get_ptr(session));
    if (c == nullptr || c->context == nullptr) return GNUTLS_E_CERTIFICATE_ERROR;
    Identity peer;
    Status st = c->context->verify_peer(session, c->is_server, c->expected_rank, &peer);
    if (st.ok()) return 0;
    NX_TRACE(TLS, "handshake refuses peer: %s", st.message().c_str());
    if (c->record_failure) c->failure = st.message();
    return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
  });
  *out = s;
  return Status::Ok();
}

std::string Context::selected_alpn(gnutls_session_t session) {
  gnutls_datum_t p{};
  if (gnutls_alpn_get_selected_protocol(session, &p) < 0) return {};
  return std::string(reinterpret_cast<const char*>(p.data), p.size);
}

}  // namespace nexar::tls
