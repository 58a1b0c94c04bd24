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

std::string machine_of(const std::string& host_id) {
  const size_t ns = host_id.rfind('/');
  const size_t boot = ns == std::string::npos || ns == 0 ? std::string::npos : host_id.rfind('/', ns - 1);
  return boot == std::string::npos ? host_id : host_id.substr(0, ns);
}

int machine_index(const std::vector<std::string>& host_ids, int rank) {
  if (rank < 0 || static_cast<size_t>(rank) >= host_ids.size()) return 0;
  const std::string mine = machine_of(host_ids[static_cast<size_t>(rank)]);
  int index = 0;
  for (int p = 0; p < rank; ++p)
    if (machine_of(host_ids[static_cast<size_t>(p)]) == mine) ++index;
  return index;
}

}  // namespace nexar::bootstrap
