// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The job's credential directory: $TMPDIR (or /tmp) / nexar-<job id>, mode 0700, holding
// one 0600 PEM file per rank and one for the launcher. Removed when this object dies, so
// every way out of nexrun that unwinds (normal end, failure, forwarded signal) cleans up.
#pragma once

#include <string>

#include "core/status.h"
#include "transport/tls/credentials.h"

namespace nexar::launcher {

class JobCredentials {
 public:
  JobCredentials() = default;
  ~JobCredentials() { remove(); }
  JobCredentials(const JobCredentials&) = delete;
  JobCredentials& operator=(const JobCredentials&) = delete;

  // Where create puts a job's credentials.
  static std::string dir_for(const std::string& job_id);
  Status create(const std::string& job_id, int nranks);
  // Idempotent.
  void remove();

  const std::string& dir() const { return files_.dir; }
  const std::string& launcher_file() const { return files_.launcher_file; }
  const std::string& rank_file(int rank) const { return files_.rank_files.at(rank); }

 private:
  tls::JobCredentialFiles files_;
  bool created_ = false;
};

// Removes dir's plain files and dir itself (quietly when it does not exist).
void remove_credential_dir(const std::string& dir);

}  // namespace nexar::launcher
