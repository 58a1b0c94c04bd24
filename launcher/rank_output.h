// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Where ranks' output goes in the end, whichever host it came from: nexrun's stdout and
// stderr, or one file per rank and stream (--output-filename DIR: DIR/1/rank.N/stdout,
// Open MPI's layout), each line prefixed by --timestamp-output's time and --tag-output's
// "[1,N]<stdout>: ". Input comes in whole lines or pieces of long lines.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>

#include "core/status.h"
#include "launcher/job_plan.h"

namespace nexar::launcher {

class RankOutput {
 public:
  explicit RankOutput(const JobPlan& plan);
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  // Creates DIR/1/rank.N for every rank (with --output-filename); a clear error if not.
  Status prepare(int nranks);
  // line_end: end the line even without a newline in data (a partial last line).
  void write(int rank, bool is_stderr, const char* data, size_t len, bool line_end);

 private:
  int dest_fd(int rank, bool is_stderr);

  const JobPlan& plan_;
  std::map<std::pair<int, bool>, bool> mid_line_;  // a line was begun and not ended
  std::map<std::pair<int, bool>, int> files_;
};

}  // namespace nexar::launcher
