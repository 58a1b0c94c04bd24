// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tls/cert_names.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "transport/tls/credentials.h"

namespace nexar::tls::names {
namespace {
constexpr const char* kRankPrefix = "nexar-rank-";
constexpr const char* kLauncherName = "nexar-launcher";
constexpr const char* kJobPrefix = "nexar-job-";

std::string organization(const std::string& job_id) { return std::string(kJobPrefix) + job_id; }
}  // namespace

bool valid_job_id(const std::string& job_id) {
  if (job_id.empty() || job_id.size() > 64) return false;
  for (char c : job_id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string subject_dn(const std::string& job_id, int rank) {
  std::string cn = rank == kLauncherRank ? std::string(kLauncherName) : kRankPrefix + std::to_string(rank);
  return "CN=" + cn + ",O=" + organization(job_id);
}

std::string ca_dn(const std::string& job_id) {
  return std::string("CN=") + kCaCommonName + ",O=" + organization(job_id);
}

bool parse_common_name(const std::string& cn, int* rank) {
  if (cn == kLauncherName) {
    *rank = kLauncherRank;
    return true;
  }
  const std::string prefix = kRankPrefix;
  if (cn.size() <= prefix.size() || cn.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string digits = cn.substr(prefix.size());
  if (digits.size() > 9 || (digits.size() > 1 && digits[0] == '0')) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  *rank = std::atoi(digits.c_str());
  return true;
}

bool parse_organization(const std::string& org, std::string* job_id) {
  const std::string prefix = kJobPrefix;
  if (org.size() <= prefix.size() || org.compare(0, prefix.size(), prefix) != 0) return false;
  std::string id = org.substr(prefix.size());
  if (!valid_job_id(id)) return false;
  *job_id = std::move(id);
  return true;
}

}  // namespace nexar::tls::names
