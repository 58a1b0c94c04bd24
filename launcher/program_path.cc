// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nexar::launcher {
namespace {

// 0 when path is an executable regular file, else an errno value.
int check_executable(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (!S_ISREG(st.st_mode)) return EACCES;
  if (access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

ProgramLookup failure(const std::string& name, const std::string& why, int err) {
  ProgramLookup r;
  r.error = "cannot run '" + name + "': " + why;
  r.exit_code = (err == ENOENT || err == ENOTDIR) ? 127 : 126;
  return r;
}

}  // namespace

ProgramLookup find_program(const std::string& name, const std::string& path_env) {
  if (name.empty()) return failure(name, "empty program name", ENOENT);
  if (name.find('/') != std::string::npos) {
    int err = check_executable(name);
    if (err != 0) return failure(name, std::strerror(err), err);
    return ProgramLookup{name, "", 0};
  }
  const std::string dirs = path_env.empty() ? "/usr/bin:/bin" : path_env;
  int first_error = ENOENT;
  size_t pos = 0;
  while (pos <= dirs.size()) {
    size_t colon = dirs.find(':', pos);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(pos, colon - pos);
    pos = colon + 1;
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    int err = check_executable(candidate);
    if (err == 0) return ProgramLookup{candidate, "", 0};
    if (err != ENOENT && err != ENOTDIR && first_error == ENOENT) first_error = err;
  }
  if (first_error == ENOENT) return failure(name, "not found in PATH", ENOENT);
  return failure(name, std::strerror(first_error), first_error);
}

std::string running_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "nexrun";
}

}  // namespace nexar::launcher
