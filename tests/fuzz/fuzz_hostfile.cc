// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun --hostfile text (Open MPI's syntax): hosts with names and slots, or a named error.
#include "fuzz_input.h"
#include "launcher/host_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<nexar::launcher::HostSlots> hosts;
  nexar::fuzz::require_hosts(nexar::launcher::parse_hostfile_text(nexar::fuzz::text_of(data, size), &hosts), hosts);
  return 0;
}
