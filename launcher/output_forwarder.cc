// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/output_forwarder.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/status.h"

namespace nexar::launcher {

std::string output_tag(int rank, bool is_stderr) {
  return strprintf("[1,%d]<%s>: ", rank, is_stderr ? "stderr" : "stdout");
}

bool write_fully(int fd, const char* data, size_t len) {
  constexpr int kStallMs = 10000;  // a reader that takes nothing for this long is gone
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n > 0) {
      data += n;
      len -= static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, kStallMs) <= 0) return false;
    } else {
      return false;
    }
  }
  return true;
}

OutputForwarder::OutputForwarder(int src_fd, int dest_fd, std::string prefix)
    : src_fd_(src_fd), dest_fd_(dest_fd), prefix_(std::move(prefix)) {}

OutputForwarder::OutputForwarder(int src_fd, Sink sink) : src_fd_(src_fd), sink_(std::move(sink)) {}

OutputForwarder::~OutputForwarder() { finish(); }

void OutputForwarder::emit(const char* data, size_t len, bool line_end) {
  if (sink_) {
    if (len > 0 || line_end) sink_(data, len, line_end);
    at_line_start_ = line_end || (len > 0 && data[len - 1] == '\n');
    return;
  }
  std::string out;
  out.reserve(prefix_.size() + len + 1);
  if (at_line_start_) out += prefix_;
  out.append(data, len);
  if (line_end && (len == 0 || data[len - 1] != '\n')) out += '\n';
  at_line_start_ = !out.empty() && out.back() == '\n';
  write_fully(dest_fd_, out.data(), out.size());  // a closed destination drops output
}

OutputForwarder::ReadResult OutputForwarder::read_some() {
  char buf[65536];
  ssize_t n;
  do {
    n = read(src_fd_, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return ReadResult::AGAIN;
  if (n <= 0) return ReadResult::END;
  pending_.append(buf, static_cast<size_t>(n));
  size_t last_nl = pending_.rfind('\n');
  if (last_nl != std::string::npos) {
    // Complete lines, one emit per line so each gets the prefix.
    size_t start = 0;
    while (start <= last_nl) {
      size_t nl = pending_.find('\n', start);
      emit(pending_.data() + start, nl - start + 1, false);
      start = nl + 1;
    }
    pending_.erase(0, last_nl + 1);
  }
  if (pending_.size() >= kMaxLine) {
    emit(pending_.data(), pending_.size(), false);
    pending_.clear();
  }
  return ReadResult::DATA;
}

void OutputForwarder::on_readable() {
  if (src_fd_ >= 0 && read_some() == ReadResult::END) close_source();
}

void OutputForwarder::finish() {
  if (src_fd_ < 0) return;
  // What is still in the pipe, bounded: a leftover writer must not keep nexrun here.
  for (int i = 0; i < 64 && read_some() == ReadResult::DATA; ++i) {
  }
  close_source();
}

void OutputForwarder::close_source() {
  if (!pending_.empty() || !at_line_start_) emit(pending_.data(), pending_.size(), !prefix_.empty() || sink_);
  pending_.clear();
  close(src_fd_);
  src_fd_ = -1;
}

}  // namespace nexar::launcher
