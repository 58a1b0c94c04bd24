// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the user asked nexrun to do, after the command line was parsed and checked.
#pragma once

#include <string>
#include <vector>

namespace nexar::launcher {

// One program of the job (MPMD: `nexrun -np 1 a : -np 3 b` has two).
struct AppPlan {
  int np = 0;                     // 0: not given (taken from the hosts' slots or SLURM)
  std::vector<std::string> argv;  // the program and its arguments, untouched
};

struct JobPlan {
  int np = 1;                     // ranks in the whole job (after hosts/SLURM are resolved)
  bool np_given = false;          // -np was on the command line
  bool tag_output = false;        // prefix each output line with the rank and stream
  bool timestamp_output = false;  // prefix each output line with the wall-clock time
  std::string output_dir;         // --output-filename: DIR/1/rank.N/{stdout,stderr}
  double timeout_s = 0;           // whole-job limit; 0: none
  double grace_s = 1.0;           // SIGTERM -> SIGKILL delay when tearing the job down
  bool no_kill = false;           // a failing rank does not stop the others
  // Fault tolerance (docs/fault-tolerance.md). recovery: a failing rank does not stop the
  // others and a failure the survivors carry on from is not the job's status;
  // respawn: replacements for failed ranks (implies recovery); max_restarts: gang restarts.
  bool recovery = false;
  int respawn = 0;
  int max_restarts = 0;
  bool verbose = false;           // log launcher steps (NX_INFO LAUNCH)
  std::vector<std::string> argv;  // the first program and its arguments (apps[0].argv)
  std::vector<AppPlan> apps;      // every program, in rank order

  // Many hosts (docs/multihost.md).
  std::vector<std::string> host_specs;  // -H values, as given ("h1:2,h2")
  std::string hostfile;                 // --hostfile
  int npernode = 0;                     // --npernode; 0: fill slots
  bool map_by_node = false;             // --map-by node (round robin over hosts)
  std::vector<std::string> forward_env; // -x VAR or VAR=value
  bool display_map = false;
  bool dry_run = false;
  std::string launch_agent;  // --launch-agent template; empty: ssh, or srun inside SLURM
  std::string iface;         // --iface: NEXAR_IFACE for the ranks and the rendezvous
  std::string addr_cidr;     // --addr: NEXAR_ADDR_CIDR
  std::string port_range;    // --port-range LO-HI: NEXAR_PORT_RANGE
  std::string bind_to;       // --bind-to none|core|socket; empty: Open MPI's default (binding.h)
  bool report_bindings = false;  // --report-bindings: one line per rank on stderr before it starts

  // Hidden: this process is a launch agent (`nexrun --agent HOST|slurm`).
  std::string agent;
};

}  // namespace nexar::launcher
