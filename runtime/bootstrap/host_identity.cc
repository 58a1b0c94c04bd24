// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/host_identity.h"

#include <unistd.h>

#include <fstream>

#include "core/params.h"

namespace nexar::bootstrap {

std::string host_identity() {
  std::string id = param::NEXAR_HOST_ID.get();
  if (!id.empty()) return id;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  // The boot id tells apart machines that share a host name; the network namespace
  // tells apart "hosts" that are namespaces of one machine (tests, containers).
  std::string boot;
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::getline(f, boot);
  char ns[128] = {0};
  ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
  if (n < 0) n = 0;
  return std::string(host) + "/" + boot + "/" + std::string(ns, static_cast<size_t>(n));
}

}  // namespace nexar::bootstrap
