// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What a rank publishes at the rendezvous so that ranks on its host can reach its inbox:
// "shm:<pid>:<pid namespace>:<mount namespace>:<inbox name>", or without shared memory
// (NEXAR_TRANSPORT=quic) "pid:<pid>:<pid namespace>", which still lets ranks on its host
// watch its exit (peer_watch.h); "-" says nothing. Two ranks use shared memory when their
// host identities are equal and their tokens are compatible (same namespaces: the same
// /dev/shm and pids that mean the same).
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status.h"

namespace nexar::shm {

// How every /dev/shm name of a job begins, without the leading '/': "nexar-<job id>-" (its
// letters and digits, "job" when none). Token::make names inboxes with it and nexrun's
// janitor (launcher/janitor.cc) removes what a failed start left behind by it.
std::string job_shm_prefix(const std::string& job_id);

struct Token {
  bool enabled = false;  // shared memory offered
  pid_t pid = 0;         // 0: unknown
  std::string pid_ns, mnt_ns, name;

  std::string to_string() const;
  static Status parse(const std::string& s, Token* out);
  // A fresh token for this process (a new unguessable inbox name for this job and rank).
  static Token make(const std::string& job_id, int rank);
  // This process without shared memory: its pid and pid namespace only.
  static Token process_only();
  bool compatible(const Token& other) const {
    return enabled && other.enabled && pid_ns == other.pid_ns && mnt_ns == other.mnt_ns;
  }
  // other's pid means the same process here (same pid namespace; host identities equal).
  bool same_pids(const Token& other) const { return pid > 0 && other.pid > 0 && pid_ns == other.pid_ns; }
};

}  // namespace nexar::shm
