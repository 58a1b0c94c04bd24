// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace nexar::launcher {
namespace {

constexpr int kMaxRanks = 4096;
constexpr int kUsageError = 2;

// Open MPI users type "-np 4"; CLI11 takes one-dash names of one letter only. Rewrite
// "-np" to "--np" among nexrun's own options (never in the program's arguments).
std::vector<std::string> normalize_args(int argc, const char* const* argv) {
  static const std::set<std::string> takes_value = {
      "-n",        "--np",           "-np",         "--timeout",      "--grace",       "-H",
      "--host",    "--hostfile",     "--npernode",  "--map-by",       "-x",            "--output-filename",
      "--iface",   "--launch-agent", "--addr",      "--port-range",   "--agent",       "--max-restarts",
      "--respawn",   "--transport",    "--bind-to"};
  std::vector<std::string> args;
  bool in_options = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (in_options) {
      if (a == "--" || a.empty() || a[0] != '-') {
        in_options = false;
      } else {
        if (a == "-np") a = "--np";
        if (a.rfind("-np=", 0) == 0) a = "-" + a;
        if (takes_value.count(a) && i + 1 < argc) {
          args.push_back(a);
          a = argv[++i];
        }
      }
    }
    args.push_back(a);
  }
  return args;
}

// "-np N prog args..." after a ':' (MPMD): each later program has its own -np.
bool parse_app_segment(const std::vector<std::string>& seg, AppPlan* app, std::string* error) {
  size_t i = 0;
  while (i < seg.size() && (seg[i] == "-np" || seg[i] == "-n" || seg[i] == "--np")) {
    if (i + 1 >= seg.size()) {
      *error = seg[i] + " needs a value";
      return false;
    }
    char* end = nullptr;
    long n = std::strtol(seg[i + 1].c_str(), &end, 10);
    if (!end || *end || n < 1 || n > kMaxRanks) {
      *error = "-np " + seg[i + 1] + " is not a rank count in [1, 4096]";
      return false;
    }
    app->np = static_cast<int>(n);
    i += 2;
  }
  app->argv.assign(seg.begin() + static_cast<long>(i), seg.end());
  if (app->argv.empty()) {
    *error = "no program given after ':'";
    return false;
  }
  if (app->argv.front()[0] == '-') {
    *error = "unknown option " + app->argv.front() + " after ':' (only -np is taken there)";
    return false;
  }
  return true;
}

// Seconds: a finite number > 0 (>= 0 with allow_zero). CLI11's Range would name its
// bounds in full, 300 digits for the largest double.
CLI::Validator seconds_check(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& v) -> std::string {
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (!v.empty() && *end == '\0' && std::isfinite(d) && (d > 0 || (allow_zero && d == 0))) return "";
        return "'" + v + "' is not a number of seconds " + (allow_zero ? ">= 0" : "> 0");
      },
      allow_zero ? "SECONDS>=0" : "SECONDS>0");
}

CliResult usage_error(const std::string& what) {
  std::fprintf(stderr, "nexrun: %s\nRun 'nexrun --help' for usage.\n", what.c_str());
  CliResult r;
  r.exit_now = true;
  r.exit_code = kUsageError;
  return r;
}

}  // namespace

CliResult parse_command_line(int argc, const char* const* argv) {
  CliResult r;
  JobPlan& p = r.plan;
  CLI::App app{"nexrun: start N ranks of a program on this host or many, with the nexar job environment\n"
               "(NEXAR_* and torchrun's RANK, WORLD_SIZE, MASTER_ADDR, ...).",
               "nexrun"};
  app.footer(
      "Usage: nexrun -np N [options] program [args...] [: -np M program2 [args...]]...\n"
      "Options end at the program name; everything after it is the program's. Each rank gets\n"
      "the NEXAR_* job environment, its credential file (NEXAR_CREDENTIALS) and torchrun's names.\n"
      "Hosts (-H, --hostfile, or a SLURM allocation) are reached through one launch agent each.\n"
      "Exit status: the first failing rank's (128+signal if killed), 124 on --timeout.\n"
      "With --enable-recovery or --respawn: 0 when every failure was followed by some rank's\n"
      "process exiting 0 (the survivors finished the job), else the first failure's status\n"
      "that no rank finished after. With --max-restarts: the last attempt's status.\n"

      "SIGUSR1 to nexrun prints a hang report: what every rank does now, and who holds the others up.\n"
      "nexrun --status [JOB] (another terminal, same user) prints each rank's current call.");
  app.prefix_command();  // the first positional and everything after it: the program
  app.set_version_flag("--version", std::string("nexrun ") + NEXRUN_VERSION);
  int np = 0;
  app.add_option("-n,--np", np, "Number of ranks (also -np N); default: every slot of the hosts, or SLURM_NTASKS")
      ->check(CLI::Range(1, kMaxRanks));
  app.add_flag("--tag-output", p.tag_output, "Prefix each output line with [1,<rank>]<stdout>: or <stderr>");
  app.add_flag("--timestamp-output", p.timestamp_output, "Prefix each output line with the time it arrived");
  app.add_option("--output-filename", p.output_dir, "Write each rank's output to DIR/1/rank.<N>/stdout and stderr");
  app.add_option("--timeout", p.timeout_s, "Stop the job after SECONDS (exit status 124)")->check(seconds_check(false));
  app.add_option("--grace", p.grace_s, "Seconds between SIGTERM and SIGKILL when stopping ranks (default 1)")
      ->check(seconds_check(true));
  app.add_flag("--no-kill", p.no_kill,
               "Keep the other ranks running when one fails; still exit with the first failure's status");
  app.add_flag("--enable-recovery", p.recovery,
               "A failed rank does not stop the job: the others keep running (they may revoke, shrink, "
               "rebuild); its failure is reported and is not the job's status if ranks finish after it");
  app.add_option("--respawn", p.respawn,
                 "Start a replacement for a failed rank (same host, rank and environment, NEXAR_RESTART_COUNT="
                 "its incarnation), at most N in the job; implies --enable-recovery")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--max-restarts", p.max_restarts,
                 "Gang restart (torchrun's): when a rank fails, stop every rank and start the whole job again, "
                 "at most N times (NEXAR_RESTART_COUNT, TORCHELASTIC_RESTART_COUNT = the attempt)")
      ->check(CLI::Range(0, 1000000));
  app.add_flag("-v,--verbose", p.verbose, "Log the launcher's steps (NEXAR_DEBUG=INFO for nexrun only)");
  app.add_option("-H,--host", p.host_specs, "Hosts and slots: h1:2,h2:2 (a host without :N has 1 slot)")
      ->allow_extra_args(false);
  app.add_option("--hostfile", p.hostfile, "File of hosts, Open MPI's syntax: 'host slots=N' or 'host:N' per line");
  app.add_option("--npernode", p.npernode, "Ranks per host")->check(CLI::Range(1, kMaxRanks));
  std::string map_by = "slot";
  app.add_option("--map-by", map_by, "slot (fill each host's slots first, default) or node (round robin)")
      ->check(CLI::IsMember({"slot", "node"}));
  app.add_option("-x", p.forward_env, "Export VAR (its value here) or VAR=value to every rank")
      ->allow_extra_args(false);
  app.add_flag("--display-map", p.display_map, "Print which ranks run on which host before starting");
  app.add_flag("--dry-run", p.dry_run, "Print the map and the agent commands, start nothing");
  app.add_option("--launch-agent", p.launch_agent,
                 "Command that runs a command on {host} (default 'ssh {host}'; inside SLURM: one srun step)");
  app.add_option("--iface", p.iface, "Network interface the ranks and the rendezvous use (NEXAR_IFACE)");
  app.add_option("--addr", p.addr_cidr, "Use the addresses inside CIDR, e.g. 10.1.0.0/16 (NEXAR_ADDR_CIDR)");
  std::string transport;
  app.add_option("--transport", transport,
                 "Between ranks: auto (shared memory on a host, QUIC between hosts), quic, or tcp (unencrypted TCP "
                 "for every peer; the rendezvous stays on QUIC) (NEXAR_TRANSPORT)")
      ->check(CLI::IsMember({"auto", "quic", "tcp"}));
  app.add_option("--bind-to", p.bind_to,
                 "Bind each rank to a core, a socket or none before it starts (default as Open MPI's: core for "
                 "2 ranks or fewer per host, socket for more, none when the ranks outnumber the cores)")
      ->check(CLI::IsMember({"none", "core", "socket"}));
  app.add_flag("--report-bindings", p.report_bindings, "Print each rank's binding on stderr before it starts");
  app.add_option("--port-range", p.port_range, "UDP ports LO-HI to bind, for firewalls (NEXAR_PORT_RANGE)");
  app.add_option("--agent", p.agent, "internal: run as the launch agent of host index N, or 'slurm'")
      ->group("");

  std::vector<std::string> args = normalize_args(argc, argv);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    r.exit_now = true;
    return r;
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", e.what());
    r.exit_now = true;
    return r;
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }
  p.map_by_node = map_by == "node";
  if (!transport.empty()) p.forward_env.push_back("NEXAR_TRANSPORT=" + transport);
  if (p.respawn > 0) p.recovery = true;
  if (p.max_restarts > 0 && p.recovery)
    return usage_error("--max-restarts stops every rank when one fails: it does not combine with "
                       "--enable-recovery or --respawn");
  if (!p.agent.empty()) return r;  // the agent reads its job from stdin
  std::vector<std::string> rest = app.remaining();
  if (!rest.empty() && rest.front() == "--") {
    rest.erase(rest.begin());
  } else if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-') {
    // prefix_command() lets unknown options through: they would be taken for the program.
    return usage_error("unknown option " + rest.front());
  }
  if (rest.empty() || rest.front() == ":") return usage_error("no program given");
  // MPMD: split at ':' arguments.
  std::vector<std::vector<std::string>> segments(1);
  for (const std::string& a : rest) {
    if (a == ":") segments.emplace_back();
    else segments.back().push_back(a);
  }
  p.apps.push_back(AppPlan{np, segments[0]});
  for (size_t i = 1; i < segments.size(); ++i) {
    AppPlan a;
    std::string error;
    if (!parse_app_segment(segments[i], &a, &error)) return usage_error(error);
    if (a.np == 0) return usage_error("every program after ':' needs its own -np");
    p.apps.push_back(std::move(a));
  }
  if (p.apps.size() > 1 && np == 0) return usage_error("the first program needs -np when ':' starts another");
  p.argv = p.apps.front().argv;
  p.np_given = np > 0;
  p.np = 0;
  for (const AppPlan& a : p.apps) p.np += a.np;
  if (p.np > kMaxRanks) return usage_error("more than 4096 ranks in all programs together");
  return r;
}

}  // namespace nexar::launcher
