// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// JSON string escaping, shared by every JSON writer (rendezvous status, flight records).
#pragma once

#include <string>

namespace nexar {

// s with JSON string escapes (quotes not included).
std::string json_escape(const std::string& s);

}  // namespace nexar
