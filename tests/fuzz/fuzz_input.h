// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What every fuzz target shares: the input as text, and a check that stops the run (abort:
// libFuzzer keeps the input as a crash) when a parser breaks a promise of its header.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nexar/nexar.h"

namespace nexar::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n", what);
  std::abort();
}

// A host parser's promise: hosts with a name and >= 1 slots, or a named error and none.
template <class Status, class Hosts>
void require_hosts(const Status& st, const Hosts& hosts) {
  require(st.ok() ? !hosts.empty() : st.code() == NEXAR_ERR_INVALID_ARGUMENT, "result and hosts agree");
  if (st.ok())
    for (const auto& h : hosts) require(!h.name.empty() && h.slots >= 1, "a host has a name and slots");
}

}  // namespace nexar::fuzz
