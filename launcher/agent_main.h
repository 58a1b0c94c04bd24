// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// `nexrun --agent HOST|slurm`: the launch agent of one host (docs/multihost.md). Reads its
// part of the job from stdin (agent_protocol.h), checks that the programs exist, writes
// the ranks' credentials into its own 0700 directory, reports ready, and on GO starts
// the ranks with the same runner as a one-host job, streaming their output and exits back
// on stdout. EOF on stdin or a silent launcher stops the ranks (SIGTERM, SIGKILL after
// the grace period); the directory is removed on every way out.
#pragma once

#include "launcher/job_plan.h"

namespace nexar::launcher {

// plan.agent: the host index, or "slurm" (SLURM_PROCID of the agent step). Exit status 0
// when the ranks ran (their statuses travel on the channel), 1 on a setup failure.
int run_agent(const JobPlan& plan);

}  // namespace nexar::launcher
