// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tls/x509_util.h"

namespace nexar::tls {

Status gnutls_status(nexar_result_t code, const std::string& what, int gnutls_rc) {
  return Status(code, what + ": " + gnutls_strerror(gnutls_rc));
}

std::string subject_attribute(gnutls_x509_crt_t crt, const char* oid) {
  char buf[256];
  size_t len = sizeof(buf);
  if (gnutls_x509_crt_get_dn_by_oid(crt, oid, 0, 0, buf, &len) < 0) return {};
  return std::string(buf, len);
}

Status export_pem(gnutls_x509_crt_t crt, std::string* out) {
  gnutls_datum_t d{};
  int rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d);
  if (rc < 0) return gnutls_status(NEXAR_ERR_INTERNAL, "exporting a certificate", rc);
  out->assign(reinterpret_cast<const char*>(d.data), d.size);
  gnutls_free(d.data);
  return Status::Ok();
}

}  // namespace nexar::tls
