// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Certificate subject names (read from a peer's certificate): a common name that parses
// names a rank or the launcher; an organization that parses names a valid job id, and
// both make the same name again.
#include "fuzz_input.h"
#include "transport/tls/cert_names.h"
#include "transport/tls/credentials.h"

namespace names = nexar::tls::names;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = nexar::fuzz::text_of(data, size);
  int rank = -2;
  if (names::parse_common_name(text, &rank)) {
    nexar::fuzz::require(rank >= 0 || rank == nexar::tls::kLauncherRank, "a rank or the launcher");
    const std::string dn = names::subject_dn("job", rank);
    nexar::fuzz::require(dn.rfind("CN=" + text + ",", 0) == 0, "the name is made again exactly");
  }
  std::string job;
  if (names::parse_organization(text, &job)) {
    nexar::fuzz::require(names::valid_job_id(job), "a valid job id");
    nexar::fuzz::require(names::ca_dn(job).find("O=" + text) != std::string::npos, "the organization is made again");
  }
  return 0;
}
