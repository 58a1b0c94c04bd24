// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Job credentials: nexrun makes a fresh certificate authority (ECDSA P-256) per job and a
// certificate per rank naming the job and the rank, plus one for the launcher itself
// (the rendezvous service). Each party gets one PEM file, mode 0600, holding
//   its certificate, the CA certificate, its private key
// in that order, inside a directory only the user can read.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::tls {

// Who a certificate speaks for. rank >= 0 is a rank; kLauncherRank is nexrun.
inline constexpr int kLauncherRank = -1;

struct Identity {
  std::string job_id;
  int rank = kLauncherRank;
  std::string to_string() const;  // "job J rank R" / "job J launcher"
};

struct JobCredentialFiles {
  std::string dir;                      // created with mode 0700
  std::string launcher_file;            // dir/launcher.pem
  std::vector<std::string> rank_files;  // dir/rank-<r>.pem
};

// Creates dir (must not exist; parent must), a CA and nranks + 1 credential files.
Status create_job_credentials(const std::string& dir, const std::string& job_id, int nranks,
                              JobCredentialFiles* out);

// Removes every file create_job_credentials wrote, and the directory.
void remove_job_credentials(const JobCredentialFiles& files);

}  // namespace nexar::tls
