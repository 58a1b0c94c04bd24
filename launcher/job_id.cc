// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/job_id.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace nexar::launcher {

Status make_job_id(std::string* out) {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(NEXAR_ERR_SYSTEM, strprintf("getrandom: %s", std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  static const char hex[] = "0123456789abcdef";
  out->clear();
  for (uint8_t b : bytes) {
    out->push_back(hex[b >> 4]);
    out->push_back(hex[b & 15]);
  }
  return Status::Ok();
}

}  // namespace nexar::launcher
