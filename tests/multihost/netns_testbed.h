// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Hosts as network namespaces (../shared/design/TESTBED.md): a bridge brmh with
// 169.254.77.254/24 and fd00:77::fe/64, and per host a namespace mh<X> whose eth0 has
// 169.254.77.<i>/24 and fd00:77::<i>/64. Everything is removed by down() (also leftovers of
// an earlier run that was killed). Needs root; available() says why not. One testbed at a
// time on the machine: up() waits (bounded) for a lock that down() releases, so test
// binaries of two build trees never remove each other's hosts.
#pragma once

#include <string>
#include <vector>

namespace multihost_test {

class NetnsTestbed {
 public:
  ~NetnsTestbed() { down(); }
  // False (and *why) when this machine cannot make namespaces (not root, no ip netns).
  static bool available(std::string* why);
  // Creates n hosts mhA, mhB, ... (n <= 3). False with *error when a step failed.
  bool up(int n, std::string* error);
  void down();

  const std::vector<std::string>& hosts() const { return hosts_; }
  static std::string agent_template() { return "nsenter --net=/var/run/netns/{host}"; }
  // Cuts (or restores) a host's only link.
  bool set_link(const std::string& host, bool up);
  // A lossy network (nft; netem is not in every kernel): loss_percent of the UDP frames the
  // bridge forwards dropped, dup_percent of each host's UDP frames also sent straight to
  // the next host (a duplicate that skips the bridge, so it can arrive first); GSO batches
  // are cut into 1500-byte frames before they leave a host. False with *why when nft is
  // missing or refuses. clear_impairment() (and down()) removes it. No delay or reordering
  // beyond that: nft has no queue that holds a frame back, and netem is not here.
  bool impair(int loss_percent, int dup_percent, std::string* why);
  void clear_impairment();
  // Frames the impairment dropped and duplicated so far (nft counters).
  long dropped_frames() const;
  long duplicated_frames() const;

 private:
  std::vector<std::string> hosts_;
  bool bridge_ = false;
  int lock_fd_ = -1;
};

// Runs a shell command; its exit status (-1 when it could not run).
int sh(const std::string& command);
// Runs a shell command and returns its standard output ("" when it could not run).
std::string sh_output(const std::string& command);
// A counter of the IP/UDP statistics in a host's namespace (/proc/net/snmp), e.g.
// snmp_counter("mhB", "Ip", "ReasmReqds"); -1 when absent.
long snmp_counter(const std::string& host, const std::string& group, const std::string& name);
// Processes whose command line contains marker (other than this process).
std::vector<int> processes_with(const std::string& marker);

}  // namespace multihost_test
