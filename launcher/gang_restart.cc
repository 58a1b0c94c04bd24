// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/gang_restart.h"

#include <unistd.h>

#include <chrono>

#include "core/log.h"
#include "core/status.h"
#include "launcher/output_forwarder.h"

namespace nexar::launcher {

int run_with_restarts(const JobPlan& plan, JobStatus* status,
                      const std::function<AttemptEnd(const JobPlan& attempt_plan, int attempt)>& run) {
  const auto t0 = std::chrono::steady_clock::now();
  JobPlan attempt_plan = plan;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) status->new_attempt(attempt);
    if (plan.timeout_s > 0 && attempt > 0) {  // --timeout bounds every attempt together
      const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      attempt_plan.timeout_s = std::max(0.001, plan.timeout_s - used);
    }
    const AttemptEnd end = run(attempt_plan, attempt);
    if (end.exit_code == 0 || !end.restartable || attempt >= plan.max_restarts) {
      if (attempt > 0) NX_INFO(LAUNCH, "attempt %d ended with status %d", attempt, end.exit_code);
      return end.exit_code;
    }
    const std::string line = strprintf("nexrun: attempt %d failed (exit status %d): restarting every rank (restart %d of %d)\n",
                                       attempt, end.exit_code, attempt + 1, plan.max_restarts);
    write_fully(STDERR_FILENO, line.data(), line.size());
  }
}

}  // namespace nexar::launcher
