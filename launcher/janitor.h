// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The janitor: nexrun re-executed as `nexrun --janitor DIR JOB_ID`, a process of its own
// session that outlives nexrun however nexrun ends, SIGKILL included. It waits for the end
// of a pipe whose write end only nexrun holds (close-on-exec, so ranks and agents never
// inherit it), then removes the job's credential directory DIR and the shared-memory names
// of the job (/dev/shm/nexar-JOB_ID-*) that a rank dying before it mapped them left behind.
// On a normal end nexrun has removed the directory itself and the janitor finds less to do.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status.h"

namespace nexar::launcher {

class Janitor {
 public:
  Janitor() = default;
  ~Janitor() { finish(); }
  Janitor(const Janitor&) = delete;
  Janitor& operator=(const Janitor&) = delete;

  Status start(const std::string& nexrun_path, const std::string& dir, const std::string& job_id);
  // Lets the janitor do its work now and reaps it (waits at most 2 s). Idempotent.
  void finish();

 private:
  pid_t pid_ = -1;
  int pipe_write_ = -1;
};

// The janitor process itself (main of `nexrun --janitor DIR JOB_ID`); stdin is the pipe.
int janitor_main(const std::string& dir, const std::string& job_id);

}  // namespace nexar::launcher
