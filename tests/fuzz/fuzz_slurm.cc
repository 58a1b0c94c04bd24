// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// SLURM's variables: the first byte picks SLURM_JOB_NODELIST (hostlist expressions such as
// r[1-2]-n[01-02]) or SLURM_TASKS_PER_NODE ("2(x3),1"); the rest is the value. Either
// expands within its bound or is refused with a named error.
#include "fuzz_input.h"
#include "launcher/host_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text = nexar::fuzz::text_of(data + 1, size - 1);
  if (data[0] & 1) {
    std::vector<int> counts;
    const nexar::Status st = nexar::launcher::expand_slurm_tasks_per_node(text, &counts);
    nexar::fuzz::require(st.ok() || st.code() == NEXAR_ERR_INVALID_ARGUMENT, "a named error");
    nexar::fuzz::require(counts.size() <= nexar::launcher::kMaxSlurmNames, "tasks within the bound");
    return 0;
  }
  std::vector<std::string> names;
  const nexar::Status st = nexar::launcher::expand_slurm_hostlist(text, &names);
  nexar::fuzz::require(st.ok() || st.code() == NEXAR_ERR_INVALID_ARGUMENT, "a named error");
  nexar::fuzz::require(names.size() <= nexar::launcher::kMaxSlurmNames, "names within the bound");
  if (st.ok())
    for (const std::string& n : names)
      nexar::fuzz::require(!n.empty() && n.find_first_of("[],") == std::string::npos, "names fully expanded");
  return 0;
}
