// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun -H: "h1:2,h2,[fd00::1]:4". Accepted hosts have a name and 1..4096 slots each
// (a repeated host adds up, so only >= 1 is promised for the sum).
#include "fuzz_input.h"
#include "launcher/host_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<nexar::launcher::HostSlots> hosts;
  nexar::fuzz::require_hosts(nexar::launcher::parse_host_option(nexar::fuzz::text_of(data, size), &hosts), hosts);
  return 0;
}
