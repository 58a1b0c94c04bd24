// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The cross-rank hang report: from every rank's flight-recorder record (the JSON of
// trace::snapshot_json) it finds, per communicator, the oldest call not every member
// finished, who waits in it, who never entered it (and what that rank last completed and
// does now), and who did not answer. The first line names the culprit, e.g.
//   nexrun: hang report: ranks 0-2,4-7 wait in allreduce #7 on comm 0x0 (world); rank 3
//   never entered it (last completed: allreduce #6; now: outside nexar)
// then one line per rank. Pure text in, text out: unit-tested on sample records.
#pragma once

#include <string>
#include <vector>

namespace nexar::launcher {

struct RankAnswer {
  int rank = 0;
  bool answered = false;
  std::string record;  // answered: the rank's JSON record
  std::string note;    // not answered: why ("did not answer within 3 s", "exited with status 1")
};

// answers: one per world rank, in rank order. reason: what started the round.
// *stuck (optional): some communicator has a collective not every member finished.
std::string hang_report(const std::string& reason, int world_size, const std::vector<RankAnswer>& answers,
                        bool* stuck = nullptr);

// "0-2,4-7" for {0,1,2,4,5,6,7}: ranks in ascending order.
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace nexar::launcher
