// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/dtype.hpp: C++ element types as nexar dtypes, spans as gather/scatter regions.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "nexar/nexar.h"

namespace nexar {

// The dtype of a C++ element type (compile error for types nexar does not carry).
template <typename T>
constexpr nexar_dtype_t dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, int8_t>) return NEXAR_INT8;
  else if constexpr (std::is_same_v<U, uint8_t>) return NEXAR_UINT8;
  else if constexpr (std::is_same_v<U, int32_t>) return NEXAR_INT32;
  else if constexpr (std::is_same_v<U, uint32_t>) return NEXAR_UINT32;
  else if constexpr (std::is_same_v<U, int64_t>) return NEXAR_INT64;
  else if constexpr (std::is_same_v<U, uint64_t>) return NEXAR_UINT64;
  else if constexpr (std::is_same_v<U, float>) return NEXAR_FLOAT32;
  else if constexpr (std::is_same_v<U, double>) return NEXAR_FLOAT64;
  else static_assert(!sizeof(T), "no nexar dtype for this type");
}

// A region of a gather/scatter list, from a span of any element type.
template <typename T>
nexar_iovec_t region(std::span<T> s) {
  return nexar_iovec_t{s.data(), s.size_bytes()};
}

}  // namespace nexar
