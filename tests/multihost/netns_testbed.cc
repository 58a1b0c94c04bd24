// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "multihost/netns_testbed.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <fstream>
#include <sstream>

namespace multihost_test {
namespace {

const char* const kNames[] = {"mhA", "mhB", "mhC"};
constexpr const char* kLockPath = "/run/lock/nexar-testbed-169.254.77.lock";
constexpr auto kLockWait = std::chrono::seconds(240);

const char kLossTable[] = "bridge nexar_mh_loss";
const char kDupTable[] = "netdev nexar_mh_dup";

void remove_impairment() {
  sh(std::string("command -v nft >/dev/null && { nft delete table ") + kLossTable + " 2>/dev/null; nft delete table " +
     kDupTable + " 2>/dev/null; }; true");
}

// Sum of the "packets N" counters of an nft table.
long nft_packets(const char* table) {
  std::istringstream in(sh_output(std::string("nft list table ") + table + " 2>/dev/null"));
  long total = 0;
  std::string word;
  while (in >> word)
    if (word == "packets") {
      long n = 0;
      if (in >> n) total += n;
    }
  return total;
}

void remove_leftovers() {
  remove_impairment();
  for (const char* ns : kNames)
    sh(std::string("ip netns del ") + ns + " 2>/dev/null; ip link del h" + ns + " 2>/dev/null");
  sh("ip link del brmh 2>/dev/null");
}

}  // namespace

int sh(const std::string& command) {
  int st = std::system(command.c_str());
  return st == -1 ? -1 : (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

std::string sh_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

long snmp_counter(const std::string& host, const std::string& group, const std::string& name) {
  // Two lines per group: the names, then the values.
  std::istringstream in(sh_output("ip netns exec " + host + " cat /proc/net/snmp"));
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    if (names.rfind(group + ":", 0) != 0) continue;
    std::istringstream n(names), v(values);
    std::string key, value;
    while (n >> key && v >> value)
      if (key == name) return std::atol(value.c_str());
  }
  return -1;
}

bool NetnsTestbed::available(std::string* why) {
  if (geteuid() != 0) {
    *why = "not root: network namespaces need root";
    return false;
  }
  if (sh("command -v ip >/dev/null && command -v nsenter >/dev/null") != 0) {
    *why = "ip (iproute2) or nsenter (util-linux) is missing";
    return false;
  }
  if (sh("ip netns add mhprobe 2>/dev/null && ip netns del mhprobe") != 0) {
    *why = "'ip netns add' fails here (no namespace support)";
    return false;
  }
  return true;
}

bool NetnsTestbed::up(int n, std::string* error) {
  if (lock_fd_ < 0) {
    lock_fd_ = ::open(kLockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock_fd_ < 0) {
      *error = std::string("cannot open the testbed lock ") + kLockPath;
      return false;
    }
    const auto give_up = std::chrono::steady_clock::now() + kLockWait;
    while (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() >= give_up) {
        ::close(lock_fd_);
        lock_fd_ = -1;
        *error = std::string("another test held the namespace testbed (") + kLockPath + ") for 240 s";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  remove_leftovers();
  auto run = [&](const std::string& c) {
    if (sh(c + " >/dev/null 2>&1") == 0) return true;
    *error = "testbed step failed: " + c;
    return false;
  };
  bridge_ = true;
  if (!run("ip link add brmh type bridge") || !run("ip addr add 169.254.77.254/24 dev brmh") ||
      !run("ip -6 addr add fd00:77::fe/64 dev brmh nodad") || !run("ip link set brmh up"))
    return false;
  for (int i = 0; i < n && i < 3; ++i) {
    const std::string ns = kNames[i], id = std::to_string(i + 1);
    hosts_.push_back(ns);
    if (!run("ip netns add " + ns) || !run("ip link add v" + ns + " type veth peer name h" + ns) ||
        !run("ip link set v" + ns + " netns " + ns) || !run("ip link set h" + ns + " master brmh up") ||
        !run("ip -n " + ns + " link set lo up") || !run("ip -n " + ns + " link set v" + ns + " name eth0") ||
        !run("ip -n " + ns + " addr add 169.254.77." + id + "/24 dev eth0") ||
        !run("ip -n " + ns + " -6 addr add fd00:77::" + id + "/64 dev eth0 nodad") ||
        !run("ip -n " + ns + " link set eth0 up"))
      return false;
  }
  return true;
}

void NetnsTestbed::down() {
  if (!hosts_.empty() || bridge_) remove_leftovers();
  hosts_.clear();
  bridge_ = false;
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
  lock_fd_ = -1;
}

bool NetnsTestbed::set_link(const std::string& host, bool up) {
  return sh("ip -n " + host + " link set eth0 " + (up ? "up" : "down")) == 0;
}

bool NetnsTestbed::impair(int loss_percent, int dup_percent, std::string* why) {
  if (sh("command -v nft >/dev/null") != 0) {
    *why = "nft (nftables) is not installed";
    return false;
  }
  clear_impairment();
  std::vector<std::string> steps = {
      std::string("add table ") + kLossTable,
      std::string("add chain ") + kLossTable + " lossy { type filter hook forward priority 0 ; }",
      std::string("add rule ") + kLossTable + " lossy meta l4proto udp numgen random mod 100 lt " +
          std::to_string(loss_percent) + " counter drop",
      std::string("add table ") + kDupTable};
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const std::string from = "h" + hosts_[i], to = "h" + hosts_[(i + 1) % hosts_.size()];
    const std::string chain = std::string(kDupTable) + " from_" + hosts_[i];
    steps.push_back("add chain " + chain + " { type filter hook ingress device \"" + from + "\" priority 0 ; }");
    steps.push_back("add rule " + chain + " meta l4proto udp numgen random mod 100 lt " + std::to_string(dup_percent) +
                    " counter dup to \"" + to + "\"");
  }
  for (const std::string& step : steps)
    if (sh("nft '" + step + "' >/dev/null 2>&1") != 0) {
      *why = "nft refused: " + step;
      clear_impairment();
      return false;
    }
  // A veth carries a GSO batch (up to 64 KB of datagrams) as one frame: segmented before it
  // leaves the host, each dropped or duplicated frame is one datagram, as on Ethernet.
  for (const std::string& h : hosts_)
    if (sh("ip -n " + h + " link set dev eth0 gso_max_segs 1") != 0) {
      *why = "cannot turn GSO off on " + h + "'s eth0";
      clear_impairment();
      return false;
    }
  return true;
}

void NetnsTestbed::clear_impairment() {
  remove_impairment();
  for (const std::string& h : hosts_) sh("ip -n " + h + " link set dev eth0 gso_max_segs 65535 2>/dev/null");
}

long NetnsTestbed::dropped_frames() const { return nft_packets(kLossTable); }
long NetnsTestbed::duplicated_frames() const { return nft_packets(kDupTable); }

std::vector<int> processes_with(const std::string& marker) {
  std::vector<int> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/cmdline");
    std::stringstream ss;
    ss << f.rdbuf();
    std::string cmd = ss.str();
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    // Zombies have an empty command line: gone for our purpose.
    if (cmd.find(marker) != std::string::npos) out.push_back(pid);
  }
  closedir(d);
  return out;
}

}  // namespace multihost_test
