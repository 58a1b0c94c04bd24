// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Splitting and trimming the comma lists that parameters, options and peers' messages
// carry (NEXAR_ALGO, NEXAR_DEBUG_SUBSYS, -H, SLURM's lists, ...): one reading of "a,,b" and
// "a," everywhere.
#pragma once

#include <string>
#include <vector>

namespace nexar {

// s cut at every sep, empty pieces kept: "a,,b" -> {"a", "", "b"}, "a," -> {"a", ""},
// "" -> {} (no pieces: an empty list, not one empty item).
std::vector<std::string> split(const std::string& s, char sep);

// s without its leading and trailing spaces, tabs, carriage returns and newlines.
std::string trim(const std::string& s);

}  // namespace nexar
