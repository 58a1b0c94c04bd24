// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// How a credential names its job and party, in one place: the certificate's subject is
//   CN=nexar-rank-<r>,O=nexar-job-<jobid>   or   CN=nexar-launcher,O=nexar-job-<jobid>
// and the CA's is CN=nexar-ca,O=nexar-job-<jobid>. Job ids are limited to characters
// that need no DN escaping, so the names parse back exactly.
#pragma once

#include <string>

namespace nexar::tls::names {

inline constexpr const char* kCaCommonName = "nexar-ca";

// 1-64 characters of [A-Za-z0-9._-].
bool valid_job_id(const std::string& job_id);

// "CN=...,O=..." for gnutls_x509_crt_set_dn (rank = kLauncherRank for the launcher).
std::string subject_dn(const std::string& job_id, int rank);
std::string ca_dn(const std::string& job_id);

// Parse the CN / O attribute values back. False when they are not ours.
bool parse_common_name(const std::string& cn, int* rank);
bool parse_organization(const std::string& org, std::string* job_id);

}  // namespace nexar::tls::names
