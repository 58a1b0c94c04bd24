// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Status: a result code from the public API plus a message with the facts (rank, peer,
// values) that explain it. Internal layers return Status; the API layer turns it into
// nexar_result_t and the thread's last-error string.
#pragma once

#include <string>
#include <utility>

#include "nexar/nexar.h"

namespace nexar {

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(nexar_result_t code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == NEXAR_SUCCESS; }
  nexar_result_t code() const { return code_; }
  const std::string& message() const { return message_; }
  // "PEER_LOST: rank 3 ...": for logs.
  std::string to_string() const;
  // Prefix the message with context as an error climbs ("bootstrap: " + message).
  Status with_context(const std::string& where) const;

 private:
  nexar_result_t code_ = NEXAR_SUCCESS;
  std::string message_;
};

// printf-style message construction for errors.
std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

#define NX_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::nexar::Status nx_status_ = (expr);       \
    if (!nx_status_.ok()) return nx_status_;   \
  } while (0)

}  // namespace nexar
