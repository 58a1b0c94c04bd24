#include "launcher/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
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
  static const std::set<std::string> takes_value = {"-n", "--np", "-np", "--timeout", "--grace"};
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

}  // namespace

CliResult parse_command_line(int argc, const char* const* argv) {
  CliResult r;
  JobPlan& p = r.plan;
  CLI::App app{"nexrun: start N ranks of a program on this host with the nexar job environment\n"
               "(NEXAR_* and torchrun's RANK, WORLD_SIZE, MASTER_ADDR, ...).",
               "nexrun"};
  app.footer(
      "Usage: nexrun -np N [options] program [args...]\n"
      "Options end at the program name; everything after it is the program's. Each rank gets\n"
      "the NEXAR_* job environment, its credential file (NEXAR_CREDENTIALS) and torchrun's names.\n"
      "Exit status: the first failing rank's (128+signal if killed), 124 on --timeout.");
  app.prefix_command();  // the first positional and everything after it: the program
  app.set_version_flag("--version", std::string("nexrun ") + NEXRUN_VERSION);
  app.add_option("-n,--np", p.np, "Number of ranks (also -np N)")
      ->required()
      ->check(CLI::Range(1, kMaxRanks));
  app.add_flag("--tag-output", p.tag_output, "Prefix each output line with [1,<rank>]<stdout>: or <stderr>");
  app.add_option("--timeout", p.timeout_s, "Stop the job after SECONDS (exit status 124)")
      ->check(CLI::PositiveNumber);
  app.add_option("--grace", p.grace_s, "Seconds between SIGTERM and SIGKILL when stopping ranks (default 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-kill", p.no_kill,
               "Keep the other ranks running when one fails; still exit with the first failure's status");
  app.add_flag("-v,--verbose", p.verbose, "Log the launcher's steps (NEXAR_DEBUG=INFO for nexrun only)");

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
    std::fprintf(stderr, "nexrun: %s\nRun 'nexrun --help' for usage.\n", e.what());
    r.exit_now = true;
    r.exit_code = kUsageError;
    return r;
  }
  p.argv = app.remaining();
  if (!p.argv.empty() && p.argv.front() == "--") {
    p.argv.erase(p.argv.begin());
  } else if (!p.argv.empty() && p.argv.front().size() > 1 && p.argv.front()[0] == '-') {
    // prefix_command() lets unknown options through: they would be taken for the program.
    std::fprintf(stderr, "nexrun: unknown option %s\nRun 'nexrun --help' for usage.\n", p.argv.front().c_str());
    r.exit_now = true;
    r.exit_code = kUsageError;
    return r;
  }
  if (p.argv.empty()) {
    std::fprintf(stderr, "nexrun: no program given\nRun 'nexrun --help' for usage.\n");
    r.exit_now = true;
    r.exit_code = kUsageError;
  }
  return r;
}

}  // namespace nexar::launcher
