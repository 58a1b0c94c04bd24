// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Forwards one rank stream (stdout or stderr pipe) to nexrun's own stdout or stderr, whole
// lines at a time so ranks' lines never interleave mid-line. With a prefix (--tag-output:
// "[1,<rank>]<stdout>: ") every line starts with it. A line longer than kMaxLine is passed
// on in pieces; a partial last line is flushed at EOF (ended with a newline when tagged).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace nexar::launcher {

class OutputForwarder {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;

  OutputForwarder(int src_fd, int dest_fd, std::string prefix);
  // Hands each whole line (newline included) or piece of a long line to sink instead;
  // line_end: a partial last line at EOF (no newline of its own).
  using Sink = std::function<void(const char* data, size_t len, bool line_end)>;
  OutputForwarder(int src_fd, Sink sink);
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  int fd() const { return src_fd_; }
  bool open() const { return src_fd_ >= 0; }
  // Reads what is available (non-blocking source) and forwards complete lines. At EOF or
  // on a read error: flushes the rest and closes the source.
  void on_readable();
  // Flushes a partial line and closes the source (end of the job).
  void finish();

 private:
  enum class ReadResult { DATA, AGAIN, END };
  ReadResult read_some();
  void close_source();
  void emit(const char* data, size_t len, bool line_end);

  int src_fd_;
  const int dest_fd_ = -1;
  const Sink sink_;
  const std::string prefix_;
  std::string pending_;    // bytes after the last newline
  bool at_line_start_ = true;
};

// Tag as Open MPI's --tag-output: "[1,<rank>]<stdout>: " / "[1,<rank>]<stderr>: ".
std::string output_tag(int rank, bool is_stderr);

// write() all of data to fd, retrying on EINTR and waiting (bounded) when fd is
// non-blocking and full. Returns false when fd is gone (EPIPE, error).
bool write_fully(int fd, const char* data, size_t len);

}  // namespace nexar::launcher
