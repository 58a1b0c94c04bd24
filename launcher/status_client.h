// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// `nexrun --status [JOB]`, typed from another terminal on the launching host: finds the
// job's directory ($TMPDIR/nexar-<JOB>, or the only running job's), connects to its
// rendezvous with the launcher's credential there (same user only: the directory is
// 0700), asks for a quiet hang-report round so every rank's current call is fresh, and
// prints the job status: one line per rank, then the report's first line.
#pragma once

#include <string>

namespace nexar::launcher {

// The file in the job's directory that holds the rendezvous address (written by nexrun).
constexpr const char* kRendezvousFile = "rendezvous";

// Returns nexrun's exit status: 0 printed, 1 no such job or it did not answer.
int status_main(const std::string& job);

}  // namespace nexar::launcher
