// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/status.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace nexar {

std::string Status::to_string() const {
  std::string s = nexar_result_string(code_);
  if (!message_.empty()) s += ": " + message_;
  return s;
}

Status Status::with_context(const std::string& where) const {
  if (ok()) return *this;
  return Status(code_, where + ": " + message_);
}

std::string strprintf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), fmt, ap2);
    out.resize(static_cast<size_t>(n));
  }
  va_end(ap2);
  return out;
}

}  // namespace nexar
