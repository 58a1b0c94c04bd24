// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The fault-scenario table (tools/fault_table.sh runs it; not a ctest): each scenario runs
// a job of 4 ranks on two namespace hosts (mhA:2,mhB:2: QUIC between the hosts, shared
// memory within each) doing `mh_probe rounds` (150 checked allreduces with barriers), RUNS
// times with seeds derived from SEED, and must end as it says: "exact" (exit 0, every
// rank ok) or "named" (the job ends with a named error within its bound: the killed rank
// and its signal, or NEXAR_ERR_PEER_LOST). After every run nothing of the job may be left:
// no process, no /dev/shm name of its job id, no credential directory, no UDP or TCP
// socket in the hosts' namespaces or on the bridge's address. Prints one line per failed
// run and the table.
//   fault_table RUNS SEED [SCENARIO...]     (needs root and $NEXRUN)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "launcher/nexrun_process.h"
#include "multihost/netns_testbed.h"

using namespace launcher_test;
using namespace multihost_test;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRanks = 4;
constexpr double kPeerTimeoutS = 3;
constexpr double kNamedBoundS = 20;  // a named error must end the job within this after the fault

std::string marker() { return "mh-fault-table-" + std::to_string(getpid()); }

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One job of the table, with a private TMPDIR (it names the job's credential directory,
// hence its id and its /dev/shm prefix).
class Job {
 public:
  explicit Job(const std::vector<std::string>& env) {
    static const std::string base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    ::setenv("TMPDIR", base.c_str(), 1);
    tmp_ = make_temp_dir();
    ::setenv("TMPDIR", tmp_.c_str(), 1);  // appended env entries do not override inherited ones
    std::vector<std::string> all = {"NEXAR_PEER_TIMEOUT=3", "NEXAR_TIMEOUT=30"};
    all.insert(all.end(), env.begin(), env.end());
    p_ = std::make_unique<NexrunProcess>(
        std::vector<std::string>{"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:2,mhB:2", MH_PROBE,
                                 "rounds", marker()},
        all);
    for (int i = 0; i < 2000 && id_.empty(); ++i) {  // nexrun makes it before any rank starts
      for (const std::string& e : nexar_entries(tmp_)) id_ = e.substr(std::string("nexar-").size());
      if (id_.empty()) std::this_thread::sleep_for(10ms);
    }
  }
  ~Job() { remove_tree(tmp_); }
  NexrunProcess& process() { return *p_; }
  // Waits for every rank's first round; false if they did not all get there.
  bool looping() { return p_->wait_for_stdout("looping rank", kRanks, 60s); }
  // A rank's pid, from its "looping rank R pid=P" line (0 when absent).
  pid_t pid_of(int rank) const {
    const std::string key = "looping rank " + std::to_string(rank) + " pid=";
    const size_t at = p_->out().find(key);
    return at == std::string::npos ? 0 : static_cast<pid_t>(std::atol(p_->out().c_str() + at + key.size()));
  }
  // What the job left behind, "" when nothing; removes it.
  std::string leftovers() {
    std::string left;
    std::vector<int> procs;
    for (int i = 0; i < 300; ++i) {  // the agents stop their ranks within moments
      procs = processes_with(marker());
      if (procs.empty()) break;
      std::this_thread::sleep_for(10ms);
    }
    if (!procs.empty()) left += std::to_string(procs.size()) + " processes ";
    for (int pid : procs) ::kill(pid, SIGKILL);
    if (!id_.empty()) {
      int shm = 0;
      for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
        if (e.path().filename().string().rfind("nexar-" + id_.substr(0, 16) + "-", 0) == 0) {
          ++shm;
          std::filesystem::remove(e.path());
        }
      if (shm) left += std::to_string(shm) + " /dev/shm names ";
    }
    if (!nexar_entries(tmp_).empty()) left += "credential directory ";
    int sockets = 0;
    for (const char* host : {"mhA", "mhB"})
      sockets += std::atoi(sh_output(std::string("ip netns exec ") + host + " ss -Htuan | wc -l").c_str());
    sockets += std::atoi(sh_output("ss -Htuan | grep -c '169\\.254\\.77\\.'").c_str());
    if (sockets) left += std::to_string(sockets) + " sockets ";
    return left;
  }

 private:
  std::string tmp_, id_;
  std::unique_ptr<NexrunProcess> p_;
};

struct Outcome {
  std::string why;     // empty: as expected
  double seconds = 0;  // the job's time ("exact") or the fault's time to the job's end ("named")
  std::string left;    // what the job left behind
};

// A job that did not get as far as its fault: ended by force, counted as failed.
Outcome broken(Job& job, const std::string& why) {
  job.process().signal(SIGKILL);
  job.process().wait(5s);
  return {why, 0, job.leftovers()};
}

// True when one line of text holds every one of words.
bool line_with(const std::string& text, const std::vector<std::string>& words) {
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    const std::string line = text.substr(b, e - b);
    if (std::all_of(words.begin(), words.end(), [&](const std::string& w) { return line.find(w) != std::string::npos; }))
      return true;
    b = e + 1;
  }
  return false;
}

// The last lines of text, indented (for a failed run).
std::string tail(const std::string& text, int lines) {
  size_t at = text.size();
  for (int i = 0; i <= lines && at != std::string::npos && at > 0; ++i) at = text.rfind('\n', at - 1);
  std::string t = at == std::string::npos ? text : text.substr(at + 1);
  std::string out;
  for (size_t b = 0; b < t.size();) {
    size_t e = t.find('\n', b);
    if (e == std::string::npos) e = t.size();
    out += "\n      " + t.substr(b, e - b);
    b = e + 1;
  }
  return out;
}

// Exit 0 and every rank ok.
Outcome exact(Job& job, Clock::time_point t0) {
  Ended e = job.process().wait(120s);
  Outcome o;
  o.seconds = since(t0);
  if (!e.finished) o.why = "no end within 120 s";
  else if (e.exit_code != 0) o.why = "exit " + std::to_string(e.exit_code);
  else if (count_of(job.process().out(), "ok rank") != kRanks) o.why = "not every rank ok";
  if (!o.why.empty()) o.why += tail(job.process().out() + job.process().err(), 6);
  o.left = job.leftovers();
  return o;
}

// The job ends after the fault (at `fault`) within the bound, with a line naming what
// happened (every word of `names` on one line).
Outcome named(Job& job, Clock::time_point fault, const std::vector<std::string>& names) {
  Ended e = job.process().wait(std::chrono::seconds(static_cast<int>(kNamedBoundS) + 40));
  Outcome o;
  o.seconds = since(fault);
  const std::string all = job.process().out() + job.process().err();
  if (!e.finished) o.why = "no end";
  else if (e.exit_code == 0) o.why = "exit 0 after the fault";
  else if (o.seconds > kNamedBoundS) o.why = "ended after the bound";
  if (!line_with(all, names)) {
    o.why += " no line names";
    for (const std::string& n : names) o.why += " '" + n + "'";
  }
  if (all.find("check failed") != std::string::npos) o.why += " a wrong result";
  if (!o.why.empty() || std::getenv("FAULT_TABLE_SHOW")) o.why += tail(all, 6);
  o.left = job.leftovers();
  return o;
}

// A random pause inside the loop, then fn.
void at_random_point(std::mt19937& rng, const std::function<void()>& fn) {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 400)(rng)));
  fn();
}

Outcome datagram_faults(NetnsTestbed&, std::mt19937& rng, const std::string& kind) {
  Job job({"NEXAR_FAULT_DATAGRAMS=" + kind + ",seed=" + std::to_string(rng() % 100000)});
  return exact(job, Clock::now());
}

Outcome bridge_faults(NetnsTestbed& bed, std::mt19937&, int loss, int dup) {
  std::string why;
  if (!bed.impair(loss, dup, &why)) return {"nft: " + why, 0, ""};
  Job job({});
  Outcome o = exact(job, Clock::now());
  const long hit = loss ? bed.dropped_frames() : bed.duplicated_frames();
  bed.clear_impairment();
  if (o.why.empty() && hit <= 0) o.why = "the bridge touched no frame";
  return o;
}

Outcome cut_and_restore(NetnsTestbed& bed, std::mt19937& rng) {
  const auto t0 = Clock::now();
  Job job({});
  if (!job.looping()) return broken(job, "ranks did not start");
  const int ms = std::uniform_int_distribution<int>(300, 1500)(rng);  // under the peer timeout
  at_random_point(rng, [&] { bed.set_link("mhB", false); });
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  bed.set_link("mhB", true);
  return exact(job, t0);
}

Outcome cut_for_good(NetnsTestbed& bed, std::mt19937& rng) {
  Job job({});
  if (!job.looping()) return broken(job, "ranks did not start");
  Clock::time_point fault;
  at_random_point(rng, [&] {
    fault = Clock::now();
    bed.set_link("mhB", false);
  });
  Outcome o = named(job, fault, {"NEXAR_ERR_PEER_LOST"});
  bed.set_link("mhB", true);
  return o;
}

Outcome signal_rank(NetnsTestbed&, std::mt19937& rng, int signo) {
  Job job({});
  if (!job.looping()) return broken(job, "ranks did not start");
  const int victim = std::uniform_int_distribution<int>(0, kRanks - 1)(rng);
  const pid_t pid = job.pid_of(victim);
  if (pid <= 0) return broken(job, "no pid for rank " + std::to_string(victim));
  Clock::time_point fault;
  at_random_point(rng, [&] {
    fault = Clock::now();
    ::kill(pid, signo);
  });
  // A stopped rank is lost by silence (the peer timeout); a killed one by its exit.
  std::vector<std::string> names = {"rank " + std::to_string(victim)};
  names.push_back(signo == SIGKILL ? "killed by signal 9" : "NEXAR_ERR_PEER_LOST");
  return named(job, fault, names);
}

struct Scenario {
  std::string name, expect;
  std::function<Outcome(NetnsTestbed&, std::mt19937&)> run;
};

std::vector<Scenario> scenarios() {
  return {
      {"bridge drops 3% of UDP frames", "exact", [](NetnsTestbed& b, std::mt19937& r) { return bridge_faults(b, r, 3, 0); }},
      {"bridge duplicates 3% of UDP frames", "exact",
       [](NetnsTestbed& b, std::mt19937& r) { return bridge_faults(b, r, 0, 3); }},
      {"datagrams delayed 5% (reordered)", "exact",
       [](NetnsTestbed& b, std::mt19937& r) { return datagram_faults(b, r, "delay=0.05"); }},
      {"datagrams corrupted 2%", "exact",
       [](NetnsTestbed& b, std::mt19937& r) { return datagram_faults(b, r, "corrupt=0.02"); }},
      {"link cut 0.3-1.5 s, restored", "exact", cut_and_restore},
      {"link cut for good", "named", cut_for_good},
      {"SIGKILL a random rank", "named", [](NetnsTestbed& b, std::mt19937& r) { return signal_rank(b, r, SIGKILL); }},
      {"SIGSTOP a random rank", "named", [](NetnsTestbed& b, std::mt19937& r) { return signal_rank(b, r, SIGSTOP); }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const unsigned seed = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 1;
  std::vector<std::string> only(argv + std::min(argc, 3), argv + argc);
  std::string why;
  if (runs < 1 || !std::getenv("NEXRUN")) {
    std::fprintf(stderr, "usage: NEXRUN=<nexrun> fault_table RUNS SEED [SCENARIO...]\n");
    return 2;
  }
  NetnsTestbed bed;
  if (!NetnsTestbed::available(&why) || !bed.up(2, &why)) {
    std::fprintf(stderr, "fault_table: no testbed: %s\n", why.c_str());
    return 2;
  }
  std::printf("fault table: %d runs per scenario, seed %u, %d ranks on mhA:2,mhB:2, NEXAR_PEER_TIMEOUT=%.0f\n", runs,
              seed, kRanks, kPeerTimeoutS);
  std::string table = "| scenario | expect | runs | failures | worst s | leftovers |\n|---|---|---|---|---|---|\n";
  int failed = 0;
  for (const Scenario& s : scenarios()) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    int failures = 0;
    double worst = 0;
    std::string left;
    for (int run = 0; run < runs; ++run) {
      std::mt19937 rng(seed * 7919u + static_cast<unsigned>(run) * 104729u + static_cast<unsigned>(s.name.size()));
      const Outcome o = s.run(bed, rng);
      worst = std::max(worst, o.seconds);
      if (!o.left.empty()) left += (left.empty() ? "" : "; ") + ("run " + std::to_string(run) + ": " + o.left);
      if (!o.why.empty() || !o.left.empty()) {
        ++failures;
        std::printf("  %s, run %d: %s%s\n", s.name.c_str(), run, o.why.c_str(),
                    o.left.empty() ? "" : (" left: " + o.left).c_str());
        std::fflush(stdout);
      }
    }
    failed += failures;
    char worst_s[32];
    std::snprintf(worst_s, sizeof(worst_s), "%.2f", worst);
    table += "| " + s.name + " | " + s.expect + " | " + std::to_string(runs) + " | " + std::to_string(failures) +
             " | " + worst_s + " | " + (left.empty() ? std::string("none") : left) + " |\n";
  }
  std::printf("%s", table.c_str());
  return failed == 0 ? 0 : 1;
}
