// nexrun: starts N ranks of a program on this host with the job environment of API.md,
// serves the job's rendezvous, forwards output and signals, and tears the job down.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/log.h"
#include "core/params.h"
#include "launcher/cli.h"
#include "launcher/free_port.h"
#include "launcher/job_credentials.h"
#include "launcher/job_id.h"
#include "launcher/job_runner.h"
#include "launcher/job_status.h"
#include "launcher/program_path.h"
#include "launcher/rank_env.h"
#include "launcher/rendezvous_service.h"
#include "launcher/signal_events.h"

using namespace nexar;
using namespace nexar::launcher;

namespace {

constexpr int kSetupFailure = 1;

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

int run(const JobPlan& plan, const std::vector<std::string>& base_env) {
  SignalEvents signals;  // before any thread exists, so all inherit the mask
  if (Status s = signals.open(); !s.ok()) return setup_failure(s);

  const char* path_env = std::getenv("PATH");
  ProgramLookup program = find_program(plan.argv.front(), path_env ? path_env : "");
  if (!program.error.empty()) {
    std::fprintf(stderr, "nexrun: %s\n", program.error.c_str());
    return program.exit_code;
  }

  JobEnvironment job;
  job.world_size = plan.np;
  if (Status s = make_job_id(&job.job_id); !s.ok()) return setup_failure(s);
  // Destroyed in reverse order: the runner, then the rendezvous (which reads status), then
  // the credential directory.
  JobStatus status(job.job_id, plan.np);
  JobCredentials credentials;
  if (Status s = credentials.create(job.job_id, plan.np); !s.ok()) return setup_failure(s);
  RendezvousService rendezvous;
  if (Status s = rendezvous.start(credentials.launcher_file(), [&status] { return status.to_json(); }); !s.ok())
    return setup_failure(s);
  job.rendezvous = rendezvous.address();
  if (Status s = find_free_tcp_port(&job.master_port); !s.ok()) return setup_failure(s);
  for (int r = 0; r < plan.np; ++r) job.credential_files.push_back(credentials.rank_file(r));

  std::vector<std::vector<std::string>> env;
  for (int r = 0; r < plan.np; ++r) env.push_back(rank_environment(base_env, job, r));
  NX_INFO(LAUNCH, "job %s: %d rank(s) of %s, rendezvous %s", job.job_id.c_str(), plan.np, program.path.c_str(),
          job.rendezvous.c_str());

  JobRunner runner(plan, &status, &signals);
  int exit_code = 0;
  if (!runner.start(program.path, env, &exit_code)) return exit_code;
  exit_code = runner.wait();
  NX_INFO(LAUNCH, "job %s ended: exit status %d", job.job_id.c_str(), exit_code);
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  ensure_standard_fds();
  CliResult cli = parse_command_line(argc, argv);
  if (cli.exit_now) return cli.exit_code;
  // The ranks get the environment nexrun was given, not what --verbose changes below.
  const std::vector<std::string> base_env = current_environment();
  if (cli.plan.verbose && !params::is_set("NEXAR_DEBUG")) {
    setenv("NEXAR_DEBUG", "INFO", 1);
    params::reload();
    log_reload();
  }
  try {
    return run(cli.plan, base_env);  // unwinds (credentials removed, ranks killed) on every path
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nexrun: internal error: %s\n", e.what());
    return kSetupFailure;
  }
}
