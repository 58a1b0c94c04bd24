// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/rank_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "launcher/output_forwarder.h"

namespace nexar::launcher {
namespace {

Status make_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    return Status(NEXAR_ERR_SYSTEM, strprintf("--output-filename: cannot create %s: %s", path.c_str(), std::strerror(errno)));
  return Status::Ok();
}

std::string timestamp() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm t;
  localtime_r(&tv.tv_sec, &t);
  char buf[64];
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &t);
  return strprintf("[%s.%06ld] ", buf, static_cast<long>(tv.tv_usec));
}

}  // namespace

RankOutput::RankOutput(const JobPlan& plan) : plan_(plan) {}

RankOutput::~RankOutput() {
  for (auto& [key, fd] : files_) close(fd);
}

Status RankOutput::prepare(int nranks) {
  if (plan_.output_dir.empty()) return Status::Ok();
  NX_RETURN_IF_ERROR(make_dir(plan_.output_dir));
  NX_RETURN_IF_ERROR(make_dir(plan_.output_dir + "/1"));
  for (int r = 0; r < nranks; ++r) {
    const std::string dir = strprintf("%s/1/rank.%d", plan_.output_dir.c_str(), r);
    NX_RETURN_IF_ERROR(make_dir(dir));
    for (bool err : {false, true}) {
      const std::string path = dir + (err ? "/stderr" : "/stdout");
      int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0)
        return Status(NEXAR_ERR_SYSTEM, strprintf("--output-filename: cannot write %s: %s", path.c_str(), std::strerror(errno)));
      files_[{r, err}] = fd;
    }
  }
  return Status::Ok();
}

int RankOutput::dest_fd(int rank, bool is_stderr) {
  auto it = files_.find({rank, is_stderr});
  if (it != files_.end()) return it->second;
  return is_stderr ? STDERR_FILENO : STDOUT_FILENO;
}

void RankOutput::write(int rank, bool is_stderr, const char* data, size_t len, bool line_end) {
  bool& mid = mid_line_[{rank, is_stderr}];
  std::string out;
  if (!mid && (len > 0 || line_end)) {
    if (plan_.timestamp_output) out += timestamp();
    if (plan_.tag_output) out += output_tag(rank, is_stderr);
  }
  out.append(data, len);
  // A partial last line is ended only when decorated (as the one-host forwarder did).
  const bool decorated = plan_.timestamp_output || plan_.tag_output;
  if (line_end && decorated && (out.empty() || out.back() != '\n') && (mid || len > 0)) out += '\n';
  if (!out.empty()) mid = out.back() != '\n';
  write_fully(dest_fd(rank, is_stderr), out.data(), out.size());  // a closed destination drops output
}

}  // namespace nexar::launcher
