// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The body of a gather (GET /all/<prefix>): many keys with their values in one response.
// Each entry is "<key> <value length>\n<value>\n"; values may hold any bytes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace nexar::rendezvous {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string encode_entries(const Entries& entries);

// NEXAR_ERR_PROTOCOL naming the offset of the first malformed entry (a key outside the
// key grammar, a length that is not a number or runs past the body, a missing newline).
Status decode_entries(std::string_view body, Entries* out);

}  // namespace nexar::rendezvous
