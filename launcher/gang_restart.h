// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// torchrun's gang restart (--max-restarts N): when an attempt of the whole job fails,
// start every rank again, at most N times. Each attempt gets its own rendezvous (no stale
// keys) and NEXAR_RESTART_COUNT / TORCHELASTIC_RESTART_COUNT = its number; --timeout
// bounds all attempts together. No restart after a stop from outside (SIGINT/SIGTERM to
// nexrun, --timeout) or a launch that could not start.
#pragma once

#include <functional>

#include "launcher/job_plan.h"
#include "launcher/job_status.h"

namespace nexar::launcher {

struct AttemptEnd {
  int exit_code = 0;
  bool restartable = false;  // the ranks ran and failed by themselves
};

// Runs attempt 0, 1, ... until one succeeds, one is not restartable, or N restarts were
// made; returns the last attempt's exit status. run() gets the plan of the attempt (its
// remaining --timeout) and the attempt's number.
int run_with_restarts(const JobPlan& plan, JobStatus* status,
                      const std::function<AttemptEnd(const JobPlan& attempt_plan, int attempt)>& run);

}  // namespace nexar::launcher
