// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Hosts and their slots, from -H, --hostfile (Open MPI's syntax) or a SLURM allocation
// (hostlist expressions such as n[01-04,07] and task counts such as 2(x3),1).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace nexar::launcher {

struct HostSlots {
  std::string name;
  int slots = 1;
};

// "h1:2,h2,h3:4" (a repeated host adds its slots to the first mention).
Status parse_host_option(const std::string& text, std::vector<HostSlots>* hosts);
// Open MPI hostfile text: one host per line, "host", "host slots=N", "host:N",
// optional max_slots=M (ignored), '#' comments and blank lines.
Status parse_hostfile_text(const std::string& text, std::vector<HostSlots>* hosts);
Status read_hostfile(const std::string& path, std::vector<HostSlots>* hosts);

// The most names or task counts a SLURM variable may expand to (a bound for bad input).
inline constexpr size_t kMaxSlurmNames = 65536;

// SLURM's hostlist expression: "n[01-04,07],login1" -> n01 n02 n03 n04 n07 login1; several
// bracket groups in one name expand leftmost slowest: "r[1-2]-n[01-02]" -> r1-n01 r1-n02
// r2-n01 r2-n02. Numbers keep the width written (zero padding).
Status expand_slurm_hostlist(const std::string& text, std::vector<std::string>* names);
// SLURM_TASKS_PER_NODE: "2(x3),1" -> 2 2 2 1.
Status expand_slurm_tasks_per_node(const std::string& text, std::vector<int>* counts);

// True for a name that means this machine (localhost, 127.0.0.1, ::1, this host's name).
bool is_local_host(const std::string& name);

}  // namespace nexar::launcher
