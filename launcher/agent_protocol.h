// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The launcher <-> launch agent control channel (docs/multihost.md): the agent's stdin and
// stdout, carried by ssh, nsenter or one srun step for every host. One message per line:
//   TYPE TARGET FIELD...
// TARGET is a host index ('*': every host; srun gives every agent the same stdin). Fields
// are separated by single spaces and %XX-escaped, so lines survive any carrier (srun
// forwards whole lines) and carry any byte.
//
// launcher -> agent:  J * job_id grace_s heartbeat_s timeout_s iface cidr cwd recovery   the job
//                                                   (recovery 1: wait for A after a failed rank)
//                     R h rank program arg...      a rank of host h
//                     E h rank NAME=value...        its environment additions
//                     K h rank pem                  its credential file's contents
//                     C h                           end of host h's part: check it
//                     G * NAME=value...             start (variables for every rank)
//                     S * signo | T * | H *         signal, stop, heartbeat
//                     A h rank k                    after a failed rank (recovery): start its
//                                                   incarnation k, or none when k is -1
// agent -> launcher:  Y h ip,ip,... master_port     checked, ready to start
//                     F h message                   failed (before or after start)
//                     P h rank pid | X h rank wait_status
//                     O h rank 1|2 0|1 bytes        output of stdout|stderr; 1: the line goes on
//                     H h | D h                     heartbeat | every rank ended
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nexar::launcher::agent {

std::string escape(std::string_view raw);
bool unescape(std::string_view text, std::string* raw);

struct Message {
  std::string type;
  std::string target;               // host index or "*"
  std::vector<std::string> fields;  // unescaped
};

// One line, newline included.
std::string encode(const std::string& type, const std::string& target, const std::vector<std::string>& fields);
// A line without its newline. False when malformed.
bool decode(std::string_view line, Message* out);

// Splits what a non-blocking descriptor delivers into lines.
class LineReader {
 public:
  static constexpr size_t kMaxLine = 16u << 20;
  explicit LineReader(int fd) : fd_(fd) {}
  enum class Result { MORE, END, TOO_LONG };
  // Reads what is available, appending complete lines (without newline) to lines.
  Result read(std::vector<std::string>* lines);
  int fd() const { return fd_; }

 private:
  int fd_;
  std::string pending_;
};

}  // namespace nexar::launcher::agent
