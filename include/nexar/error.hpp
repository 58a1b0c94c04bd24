// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/error.hpp: failures as exceptions (nexar::Error) and the checks that throw them.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "nexar/nexar.h"

namespace nexar {

// A failed call: code() is the nexar_result_t, what() names the call and the reason.
class Error : public std::runtime_error {
 public:
  Error(nexar_result_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  nexar_result_t code() const noexcept { return code_; }

 private:
  nexar_result_t code_;
};

// Throws Error unless r is NEXAR_SUCCESS.
inline void check(nexar_result_t r, nexar_comm_t comm, const char* call) {
  if (r != NEXAR_SUCCESS)
    throw Error(r, std::string(call) + ": " + nexar_result_string(r) + ": " + nexar_comm_last_error(comm));
}

// Throws Error(NEXAR_ERR_INVALID_ARGUMENT) unless counts and displs have an entry per rank
// and every block [displs[i], displs[i] + counts[i]) lies inside a buffer of n elements
// (the span overloads of the collectives with a count per rank check before calling).
inline void check_blocks(const char* call, const char* buf, size_t n, std::span<const size_t> counts,
                         std::span<const size_t> displs, size_t ranks) {
  if (counts.size() < ranks || displs.size() < ranks)
    throw Error(NEXAR_ERR_INVALID_ARGUMENT, std::string(call) + ": " + std::to_string(counts.size()) + " counts and " +
                                                std::to_string(displs.size()) + " displacements for " +
                                                std::to_string(ranks) + " ranks");
  for (size_t i = 0; i < ranks; ++i)
    if (counts[i] && (displs[i] > n || counts[i] > n - displs[i]))
      throw Error(NEXAR_ERR_INVALID_ARGUMENT, std::string(call) + ": block " + std::to_string(i) + " of " + buf +
                                                  " ends at element " + std::to_string(displs[i] + counts[i]) +
                                                  " of a buffer of " + std::to_string(n) + " elements");
}

}  // namespace nexar
