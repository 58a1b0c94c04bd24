// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Which congestion controller a connection runs (NEXAR_QUIC_CC): Cubic by default, or
// BBR, BBRv2 or Reno, for comparing them on a path without a rebuild. On the loaded 2-core
// VM neither won everywhere (docs/quic-performance.md, "Bulk on loopback"): BBRv2 sent a
// loopback broadcast 1.5-1.9x faster than Cubic at load 10-11 and slower at load 15, and
// held 1444-byte packets between two hosts to 0.2-0.7x of Cubic.
#pragma once

#include <ngtcp2/ngtcp2.h>

#include <string>

#include "core/status.h"

namespace nexar::quic {

// "cubic", "bbr", "bbr2" or "reno"; anything else is NEXAR_ERR_INVALID_ARGUMENT naming the value.
Status check_congestion_name(const std::string& name);

// The controller a name that passed check_congestion_name stands for.
ngtcp2_cc_algo congestion_algo(const std::string& name);

const char* congestion_algo_name(ngtcp2_cc_algo algo);

}  // namespace nexar::quic
