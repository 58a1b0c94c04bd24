// What a rank publishes at the rendezvous so that ranks on its host can reach its inbox:
// "shm:<pid>:<pid namespace>:<mount namespace>:<inbox name>", or "-" without shared
// memory. Two ranks use shared memory when their host identities are equal and their
// tokens are compatible (same namespaces: the same /dev/shm and pids that mean the same).
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status.h"

namespace nexar::shm {

struct Token {
  bool enabled = false;
  pid_t pid = 0;
  std::string pid_ns, mnt_ns, name;

  std::string to_string() const;
  static Status parse(const std::string& s, Token* out);
  // A fresh token for this process (a new unguessable inbox name for this job and rank).
  static Token make(const std::string& job_id, int rank);
  bool compatible(const Token& other) const {
    return enabled && other.enabled && pid_ns == other.pid_ns && mnt_ns == other.mnt_ns;
  }
};

}  // namespace nexar::shm
