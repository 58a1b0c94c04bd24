// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexrun: starts ranks of a program on this host (one runner) or on many hosts (one launch
// agent per host), with the job environment of API.md; serves the job's rendezvous,
// forwards output and signals, and tears the job down. `nexrun --agent` is the agent.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/log.h"
#include "core/params.h"
#include "launcher/agent_main.h"
#include "launcher/binding.h"
#include "launcher/cli.h"
#include "launcher/free_port.h"
#include "launcher/gang_restart.h"
#include "launcher/janitor.h"
#include "launcher/job_credentials.h"
#include "launcher/job_id.h"
#include "launcher/job_runner.h"
#include "launcher/job_status.h"
#include "launcher/program_path.h"
#include "launcher/rank_env.h"
#include "launcher/rank_map.h"
#include "launcher/rank_output.h"
#include "launcher/remote_job.h"
#include "launcher/rendezvous_service.h"
#include "launcher/signal_events.h"
#include "launcher/status_client.h"

using namespace nexar;
using namespace nexar::launcher;

namespace {

constexpr int kSetupFailure = 1;
constexpr int kUsageError = 2;

// Descriptors 0-2 must exist so a pipe never lands on them (dup2 onto itself would keep
// close-on-exec and the rank would lose the stream).
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

int setup_failure(const Status& s) {
  std::fprintf(stderr, "nexrun: %s\n", s.to_string().c_str());
  return kSetupFailure;
}

int usage_failure(const std::string& what) {
  std::fprintf(stderr, "nexrun: %s\nRun 'nexrun --help' for usage.\n", what.c_str());
  return kUsageError;
}

// Where the ranks run: -H / --hostfile, else the SLURM allocation, else this host.
struct Placement {
  std::vector<HostSlots> hosts;
  bool from_slurm = false;
  bool local = true;
};

Status find_hosts(const JobPlan& plan, Placement* out) {
  for (const std::string& spec : plan.host_specs) NX_RETURN_IF_ERROR(parse_host_option(spec, &out->hosts));
  if (!plan.hostfile.empty()) NX_RETURN_IF_ERROR(read_hostfile(plan.hostfile, &out->hosts));
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* nodes = std::getenv("SLURM_JOB_NODELIST");
  if (out->hosts.empty() && job && *job && nodes && *nodes) {
    std::vector<std::string> names;
    std::vector<int> tasks;
    NX_RETURN_IF_ERROR(expand_slurm_hostlist(nodes, &names).with_context("SLURM_JOB_NODELIST"));
    const char* tpn = std::getenv("SLURM_TASKS_PER_NODE");
    if (tpn && *tpn) NX_RETURN_IF_ERROR(expand_slurm_tasks_per_node(tpn, &tasks));
    for (size_t i = 0; i < names.size(); ++i)
      out->hosts.push_back({names[i], i < tasks.size() ? tasks[i] : 1});
    out->from_slurm = true;
  }
  out->local = !out->from_slurm;
  for (const HostSlots& h : out->hosts) out->local = out->local && is_local_host(h.name);
  return Status::Ok();
}

// The variables nexrun adds for every rank besides the job's: -x, and the network options.
std::vector<std::string> exported_env(const JobPlan& plan, bool remote) {
  std::vector<std::string> out;
  if (remote) {
    // Remote ranks get their host's environment; NEXAR_* settings travel with the job.
    for (const std::string& kv : current_environment())
      if (kv.rfind("NEXAR_", 0) == 0) out.push_back(kv);
  }
  for (const std::string& x : plan.forward_env) {
    if (x.find('=') != std::string::npos) {
      out.push_back(x);
    } else if (const char* v = std::getenv(x.c_str())) {
      out.push_back(x + "=" + v);
    } else {
      std::fprintf(stderr, "nexrun: warning: -x %s: not set here, not exported\n", x.c_str());
    }
  }
  if (!plan.iface.empty()) out.push_back("NEXAR_IFACE=" + plan.iface);
  if (!plan.addr_cidr.empty()) out.push_back("NEXAR_ADDR_CIDR=" + plan.addr_cidr);
  if (!plan.port_range.empty()) out.push_back("NEXAR_PORT_RANGE=" + plan.port_range);
  return out;
}

// Program and arguments of each rank (MPMD: the apps in rank order).
std::vector<std::vector<std::string>> rank_argv(const JobPlan& plan, int np) {
  std::vector<std::vector<std::string>> out;
  for (const AppPlan& a : plan.apps)
    for (int i = 0; i < (a.np > 0 ? a.np : np) && static_cast<int>(out.size()) < np; ++i) out.push_back(a.argv);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// For `nexrun --status` from another terminal: the rendezvous address beside the
// launcher's credential (the directory is this user's only; removed with it).
void publish_rendezvous(const JobCredentials& credentials, const std::string& address) {
  std::ofstream f(credentials.dir() + "/" + kRendezvousFile);
  f << address << "\n";
}

// What every launch makes before starting ranks: per-rank output, a job id and its status,
// and the job's credentials, watched by the janitor in case nexrun is killed (members are
// destroyed in reverse: the credential directory goes first, the janitor last).
struct JobSetup {
  explicit JobSetup(const JobPlan& plan) : output(plan) {}
  Status prepare(const JobPlan& plan) {
    NX_RETURN_IF_ERROR(output.prepare(plan.np));
    job.world_size = plan.np;
    NX_RETURN_IF_ERROR(make_job_id(&job.job_id));
    status.emplace(job.job_id, plan.np);
    NX_RETURN_IF_ERROR(janitor.start(running_executable(), JobCredentials::dir_for(job.job_id), job.job_id));
    return credentials.create(job.job_id, plan.np);
  }
  Janitor janitor;
  RankOutput output;
  JobEnvironment job;
  std::optional<JobStatus> status;
  JobCredentials credentials;
};

int run_local(const JobPlan& plan, const std::vector<std::string>& base_env, SignalEvents& signals) {
  const char* path_env = std::getenv("PATH");
  std::vector<std::string> paths;
  for (const AppPlan& a : plan.apps) {
    ProgramLookup program = find_program(a.argv.front(), path_env ? path_env : "");
    if (!program.error.empty()) {
      std::fprintf(stderr, "nexrun: %s\n", program.error.c_str());
      return program.exit_code;
    }
    paths.push_back(program.path);
  }
  // Destroyed in reverse order: each attempt's runner, then its rendezvous (which reads
  // status), then the credential directory.
  JobSetup setup(plan);
  if (Status s = setup.prepare(plan); !s.ok()) return setup_failure(s);
  RankOutput& output = setup.output;
  JobEnvironment& job = setup.job;
  JobStatus& status = *setup.status;
  JobCredentials& credentials = setup.credentials;
  if (Status s = find_free_tcp_port(&job.master_port); !s.ok()) return setup_failure(s);
  for (int r = 0; r < plan.np; ++r) job.credential_files.push_back(credentials.rank_file(r));

  // -x VAR=value replaces an inherited VAR.
  const std::vector<std::string> exported = exported_env(plan, false);
  std::vector<std::string> base;
  for (const std::string& kv : base_env) {
    bool replaced = false;
    for (const std::string& x : exported) replaced = replaced || x.substr(0, x.find('=')) == kv.substr(0, kv.find('='));
    if (!replaced) base.push_back(kv);
  }
  base.insert(base.end(), exported.begin(), exported.end());
  const auto argv = rank_argv(plan, plan.np);
  // Every rank here is on this host: its rank is its local rank.
  const Topology topology = this_host();
  BindTo policy = BindTo::DEFAULT;
  std::vector<RankBinding> bindings;
  if (Status s = parse_bind_to(plan.bind_to, &policy); !s.ok()) return usage_failure(s.message());
  if (Status s = plan_bindings(policy, plan.np, topology, &bindings); !s.ok()) return usage_failure(s.message());
  if (plan.report_bindings)
    for (int r = 0; r < plan.np; ++r)
      std::fprintf(stderr, "nexrun: %s\n", describe_binding(r, bindings[static_cast<size_t>(r)], topology).c_str());

  return run_with_restarts(plan, &status, [&](const JobPlan& attempt_plan, int attempt) -> AttemptEnd {
    // Every attempt has a fresh rendezvous: nothing an earlier attempt stored is seen.
    RendezvousService rendezvous;
    if (Status s = rendezvous.start(credentials.launcher_file(), &status); !s.ok())
      return {setup_failure(s), false};
    job.rendezvous = rendezvous.address();
    publish_rendezvous(credentials, job.rendezvous);
    job.restart_count = attempt;
    std::vector<SpawnSpec> specs;
    size_t app = 0;
    for (int r = 0, in_app = 0; r < plan.np; ++r, ++in_app) {
      if (in_app == plan.apps[app].np && app + 1 < plan.apps.size()) ++app, in_app = 0;
      // Later duplicates of a name must lose to the job's own: rank_environment drops them.
      specs.push_back({paths[app], argv[static_cast<size_t>(r)], rank_environment(base, job, r), false,
                       bindings[static_cast<size_t>(r)].cpus});
    }
    NX_INFO(LAUNCH, "job %s: %d rank(s) of %s, rendezvous %s, attempt %d", job.job_id.c_str(), plan.np,
            paths[0].c_str(), job.rendezvous.c_str(), attempt);
    RunnerHooks hooks;
    hooks.output = [&output](int rank, bool err, const char* d, size_t n, bool end) {
      output.write(rank, err, d, n, end);
    };
    hooks.hang_report = [&rendezvous](const std::string& reason, bool if_nexar) {
      return rendezvous.hangs().request(reason, if_nexar);
    };
    JobRunner runner(attempt_plan, &status, &signals, std::move(hooks));
    int exit_code = 0;
    if (!runner.start(specs, &exit_code)) return {exit_code, false};
    exit_code = runner.wait();
    NX_INFO(LAUNCH, "job %s ended: exit status %d", job.job_id.c_str(), exit_code);
    return {exit_code, !runner.stopped_from_outside()};
  });
}

int run_remote(const JobPlan& plan, const Placement& where, const RankMap& map, SignalEvents& signals) {
  if (!plan.bind_to.empty() || plan.report_bindings)
    std::fprintf(stderr, "nexrun: --bind-to and --report-bindings apply to ranks of one host; the launch agents "
                         "of several hosts start their ranks unbound\n");
  RemoteLaunch how;
  how.nexrun_path = running_executable();
  how.use_srun = where.from_slurm && plan.launch_agent.empty();
  how.agent_template = plan.launch_agent.empty() ? "ssh {host}" : plan.launch_agent;
  JobSetup setup(plan);
  if (Status s = setup.prepare(plan); !s.ok()) return setup_failure(s);
  RankOutput& output = setup.output;
  JobEnvironment& job = setup.job;
  JobStatus& status = *setup.status;
  JobCredentials& credentials = setup.credentials;
  const std::vector<int> used = map.used_hosts();
  job.num_nodes = static_cast<int>(used.size());
  for (int r = 0; r < plan.np; ++r) {
    const int h = map.host_of_rank[static_cast<size_t>(r)];
    job.local_rank.push_back(map.local_rank(r));
    job.local_size.push_back(static_cast<int>(map.ranks_of_host[static_cast<size_t>(h)].size()));
    job.node_rank.push_back(static_cast<int>(std::find(used.begin(), used.end(), h) - used.begin()));
  }
  const std::vector<std::string> exported = exported_env(plan, true);
  std::vector<std::string> pems;
  for (int r = 0; r < plan.np; ++r) pems.push_back(read_file(credentials.rank_file(r)));
  return run_with_restarts(plan, &status, [&](const JobPlan& attempt_plan, int attempt) -> AttemptEnd {
    // Every attempt has its own agents and rendezvous: the whole job starts again.
    job.restart_count = attempt;
    std::vector<std::vector<std::string>> env;
    for (int r = 0; r < plan.np; ++r) env.push_back(rank_environment(exported, job, r));
    RemoteJob remote(attempt_plan, map, how, &status, &signals, &output);
    int exit_code = 0;
    if (!remote.start(&job, env, rank_argv(plan, plan.np), pems, credentials.launcher_file(), &exit_code))
      return {exit_code, false};
    publish_rendezvous(credentials, job.rendezvous);
    exit_code = remote.wait();
    NX_INFO(LAUNCH, "job %s ended: exit status %d", job.job_id.c_str(), exit_code);
    return {exit_code, !remote.stopped_from_outside()};
  });
}

int run(JobPlan plan, const std::vector<std::string>& base_env) {
  SignalEvents signals;  // before any thread exists, so all inherit the mask
  if (Status s = signals.open(); !s.ok()) return setup_failure(s);

  Placement where;
  if (Status s = find_hosts(plan, &where); !s.ok()) return usage_failure(s.message());
  if (!plan.np_given && where.hosts.empty() && plan.npernode == 0)
    return usage_failure("-np is required (or give hosts with -H / --hostfile, or run inside a SLURM allocation)");
  if (where.hosts.empty()) where.hosts.push_back({"localhost", plan.np_given ? plan.np : plan.npernode});
  RankMap map;
  int np = plan.np_given ? plan.np : 0;
  if (!plan.np_given && where.from_slurm)
    if (const char* n = std::getenv("SLURM_NTASKS")) np = std::atoi(n);
  if (Status s = map_ranks(where.hosts, np, plan.npernode, plan.map_by_node, &map); !s.ok())
    return usage_failure(s.message());
  plan.np = static_cast<int>(map.host_of_rank.size());
  if (plan.apps.size() == 1) plan.apps[0].np = plan.np;

  if (plan.display_map || plan.dry_run) std::fputs(describe_map(map).c_str(), plan.dry_run ? stdout : stderr);
  if (plan.dry_run) {
    if (!where.local) {
      RemoteLaunch how{plan.launch_agent.empty() ? "ssh {host}" : plan.launch_agent,
                       where.from_slurm && plan.launch_agent.empty(), running_executable()};
      for (const std::string& c : agent_commands(how, map)) std::printf("nexrun: agent: %s\n", c.c_str());
    }
    return 0;
  }
  return where.local ? run_local(plan, base_env, signals) : run_remote(plan, where, map, signals);
}

}  // namespace

int main(int argc, char** argv) {
  ensure_standard_fds();
  if (argc == 4 && std::string(argv[1]) == "--janitor") return janitor_main(argv[2], argv[3]);
  if ((argc == 2 || argc == 3) && std::string(argv[1]) == "--status") return status_main(argc == 3 ? argv[2] : "");
  CliResult cli = parse_command_line(argc, argv);
  if (cli.exit_now) return cli.exit_code;
  if (!cli.plan.agent.empty()) return run_agent(cli.plan);
  // The ranks get the environment nexrun was given, not what --verbose changes below.
  const std::vector<std::string> base_env = current_environment();
  if (cli.plan.verbose && !param::NEXAR_DEBUG.is_set()) setenv("NEXAR_DEBUG", "INFO", 1);
  // The launcher's own rendezvous honours the network options too.
  if (!cli.plan.port_range.empty()) setenv("NEXAR_PORT_RANGE", cli.plan.port_range.c_str(), 1);
  params::reload();
  log_reload();
  params::check_environment();
  try {
    return run(cli.plan, base_env);  // unwinds (credentials removed, ranks killed) on every path
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nexrun: internal error: %s\n", e.what());
    return kSetupFailure;
  }
}
