// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// API.md's torchrun names in practice: a PyTorch program with init_method="env://" (gloo)
// runs unchanged under nexrun. Needs Debian's python3-torch; skipped visibly without it.
#include <catch.hpp>

#include "launcher/nexrun_process.h"

using namespace launcher_test;

TEST_CASE("a PyTorch env:// program runs unchanged under nexrun", "[integration]") {
  std::string out, err;
  Ended probe = run_program({"/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()"},
                            &out, &err, 60s);
  if (probe.exit_code != 0) {
    WARN("skipped: Debian's python3-torch with gloo is not installed (" << err << ")");
    return;
  }
  constexpr int N = 3;
  Ended e = run_nexrun({"-np", std::to_string(N), "/usr/bin/python3", TORCH_ENV_PY}, &out, &err, 90s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  for (int r = 0; r < N; ++r)
    CHECK(out.find("torch ok rank " + std::to_string(r) + " of 3 local " + std::to_string(r)) != std::string::npos);
}
