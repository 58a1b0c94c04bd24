// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/token.h"

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace nexar::shm {
namespace {
std::string ns_id(const char* which) {
  struct stat st;
  if (::stat(which, &st) != 0) return "0";
  return std::to_string(static_cast<unsigned long long>(st.st_ino));
}

std::string random_hex(size_t bytes) {
  std::vector<uint8_t> b(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::getrandom(b.data() + got, bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  std::string s;
  static const char hex[] = "0123456789abcdef";
  for (uint8_t c : b) {
    s.push_back(hex[c >> 4]);
    s.push_back(hex[c & 15]);
  }
  return s;
}

bool valid_name(const std::string& n) {
  if (n.size() < 2 || n.size() > 200 || n[0] != '/') return false;
  for (size_t i = 1; i < n.size(); ++i) {
    char c = n[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  }
  return true;
}
}  // namespace

std::string Token::to_string() const {
  if (!enabled) return pid > 0 ? "pid:" + std::to_string(pid) + ":" + pid_ns : "-";
  return "shm:" + std::to_string(pid) + ":" + pid_ns + ":" + mnt_ns + ":" + name;
}

Status Token::parse(const std::string& s, Token* out) {
  *out = Token{};
  if (s == "-") return Status::Ok();
  std::vector<std::string> f;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ':')) f.push_back(part);
  const bool shm = f.size() == 5 && f[0] == "shm", pid_only = f.size() == 3 && f[0] == "pid";
  char* end = nullptr;
  long pid = shm || pid_only ? std::strtol(f[1].c_str(), &end, 10) : 0;
  if ((!shm && !pid_only) || !end || *end || pid <= 0 || f[2].empty() || (shm && !valid_name(f[4])))
    return Status(NEXAR_ERR_PROTOCOL, "malformed shared-memory token '" + s + "'");
  out->enabled = shm;
  out->pid = static_cast<pid_t>(pid);
  out->pid_ns = f[2];
  if (shm) {
    out->mnt_ns = f[3];
    out->name = f[4];
  }
  return Status::Ok();
}

Token Token::process_only() {
  Token t;
  t.pid = ::getpid();
  t.pid_ns = ns_id("/proc/self/ns/pid");
  return t;
}

std::string job_shm_prefix(const std::string& job_id) {
  std::string job;
  for (char c : job_id)
    if (std::isalnum(static_cast<unsigned char>(c)) && job.size() < 64) job.push_back(c);
  return "nexar-" + (job.empty() ? std::string("job") : job) + "-";
}

Token Token::make(const std::string& job_id, int rank) {
  Token t = process_only();
  t.enabled = true;
  t.mnt_ns = ns_id("/proc/self/ns/mnt");
  // Built piece by piece in a new string: GCC 12 at -O3 raises a false -Wrestrict on
  // "/" + a + ... (and on assigning a literal over the old name), which stops a Release
  // build with -Werror.
  std::string name(1, '/');
  name += job_shm_prefix(job_id);
  name += 'r';
  name += std::to_string(rank);
  name += '-';
  name += random_hex(8);
  t.name = std::move(name);
  return t;
}

}  // namespace nexar::shm
