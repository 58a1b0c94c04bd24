// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun's default kind of launch agent, ssh, for real: an OpenSSH server (Debian's
// openssh-server) in each of two namespace hosts, reached with `ssh -F <config> {host}`
// (the config only adds the test's port, keys and no known-hosts file). Collectives across
// the hosts, then a launcher killed mid-job: ssh carries the end of the control channel
// to the agents, which stop their ranks.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch.hpp>
#include <fstream>
#include <memory>
#include <thread>

#include "launcher/nexrun_process.h"
#include "multihost/netns_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

constexpr int kPort = 2222;

std::string marker() { return "mh-ssh-marker-" + std::to_string(getpid()); }

bool none_left(const std::string& text) {
  for (int i = 0; i < 500; ++i) {
    if (processes_with(text).empty()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// sshd in each host of the testbed, and the client config that reaches them.
struct SshHosts {
  std::string dir, client_config;
  std::vector<std::unique_ptr<NexrunProcess>> daemons;

  bool up(const NetnsTestbed& bed, std::string* why) {
    if (access("/usr/sbin/sshd", X_OK) != 0 || sh("command -v ssh ssh-keygen >/dev/null") != 0) {
      *why = "OpenSSH is missing (apt-get install openssh-server openssh-client)";
      return false;
    }
    dir = make_temp_dir();
    chmod(dir.c_str(), 0700);
    if (sh("mkdir -p /run/sshd && ssh-keygen -q -t ed25519 -N '' -f " + dir + "/host_key && ssh-keygen -q -t ed25519 -N '' -f " +
           dir + "/client_key && cp " + dir + "/client_key.pub " + dir + "/authorized_keys") != 0) {
      *why = "ssh-keygen failed";
      return false;
    }
    std::ofstream client(client_config = dir + "/ssh_config");
    for (size_t i = 0; i < bed.hosts().size(); ++i) {
      const std::string& h = bed.hosts()[i];
      const std::string config = dir + "/sshd_" + h;
      std::ofstream(config) << "Port " << kPort << "\nListenAddress 169.254.77." << i + 1 << "\nHostKey " << dir
                            << "/host_key\nAuthorizedKeysFile " << dir << "/authorized_keys\n"
                            << "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                            << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\n";
      daemons.push_back(std::make_unique<NexrunProcess>(
          NexrunProcess::Program{},
          std::vector<std::string>{"/usr/bin/nsenter", "--net=/var/run/netns/" + h, "/usr/sbin/sshd", "-D", "-e", "-f", config}));
      client << "Host " << h << "\n  HostName 169.254.77." << i + 1 << "\n  Port " << kPort << "\n  IdentityFile " << dir
             << "/client_key\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n"
             << "  LogLevel ERROR\n  BatchMode yes\n  ConnectTimeout 5\n";
    }
    client.close();
    // Each daemon answers once it listens.
    for (const std::string& h : bed.hosts()) {
      bool ok = false;
      for (int t = 0; t < 100 && !ok; ++t) {
        ok = sh("ssh -F " + client_config + " " + h + " true 2>/dev/null") == 0;
        if (!ok) std::this_thread::sleep_for(50ms);
      }
      if (!ok) {
        *why = "sshd in " + h + " did not answer";
        return false;
      }
    }
    return true;
  }
  ~SshHosts() {
    daemons.clear();  // SIGKILL and reap
    if (!dir.empty()) remove_tree(dir);
  }
};

}  // namespace

TEST_CASE("ssh launch agents: collectives across hosts, and no rank left when nexrun is killed", "[multihost]") {
  std::string why;
  NetnsTestbed bed;
  if (!NetnsTestbed::available(&why) || !bed.up(2, &why)) {
    WARN("skipped: " << why);
    return;
  }
  SshHosts ssh;
  REQUIRE(ssh.up(bed, &why));
  const std::string agent = "ssh -F " + ssh.client_config + " {host}";

  std::string out, err;
  Ended e = run_nexrun({"--launch-agent", agent, "-H", "mhA:2,mhB:2", MH_PROBE, "collect", marker()}, &out, &err, 60s);
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 4);
  CHECK(count_of(out, "node 1 local 1/2") == 1);
  std::printf("ssh agents, 2 hosts x 2 ranks: %.2f s\n", e.seconds);

  NexrunProcess job({"--launch-agent", agent, "-H", "mhA:2,mhB:1", MH_PROBE, "loop", marker()});
  REQUIRE(job.wait_for_stdout("looping rank", 3, 30s));
  CHECK(processes_with(marker()).size() >= 3);
  job.signal(SIGKILL);
  job.wait(5s);
  CHECK(none_left(marker()));
  CHECK(none_left(" --agent "));
}
