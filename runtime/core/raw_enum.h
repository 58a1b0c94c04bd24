// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The value of a C enum argument read as an int: a caller may pass any int, and loading an
// out-of-range value as the enum type is undefined behaviour (UBSan: -fsanitize=enum), so
// a value not yet checked is read only so.
#pragma once

#include <cstring>

namespace nexar {

template <typename E>
int raw_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace nexar
