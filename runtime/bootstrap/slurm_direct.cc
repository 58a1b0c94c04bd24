// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/slurm_direct.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "bootstrap/address_select.h"
#include "core/log.h"
#include "core/params.h"
#include "rendezvous/host.h"
#include "transport/tls/credentials.h"
#include "transport/tls/tls_context.h"

namespace nexar::bootstrap {
namespace {

// Task 0's rendezvous and directory, alive until the process exits.
struct DirectState {
  std::unique_ptr<rendezvous::Host> host;
  tls::JobCredentialFiles files;
  std::string dir;
};
DirectState* g_state = nullptr;

void cleanup_at_exit() {
  if (!g_state) return;
  g_state->host.reset();
  for (std::string& f : g_state->files.rank_files) f = g_state->dir + f.substr(f.rfind('/'));
  g_state->files.launcher_file = g_state->dir + "/launcher.pem";
  g_state->files.dir = g_state->dir;
  tls::remove_job_credentials(g_state->files);
  unlink((g_state->dir + "/job").c_str());
  rmdir(g_state->dir.c_str());
  delete g_state;
  g_state = nullptr;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::string env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Status private_dir(std::string* out) {
  std::string base = param::NEXAR_SLURM_DIR.get();
  if (base.empty()) {
    const std::string home = env_str("HOME");
    if (home.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "srun direct launch: neither NEXAR_SLURM_DIR nor HOME is set");
    base = home + "/.nexar";
  }
  mkdir(base.c_str(), 0700);
  struct stat st;
  if (lstat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status(NEXAR_ERR_SYSTEM, "srun direct launch: cannot create directory " + base);
  if (st.st_uid != geteuid() || (st.st_mode & 077))
    return Status(NEXAR_ERR_AUTH, "srun direct launch: " + base + " must be yours with mode 0700 (it holds job keys)");
  *out = base;
  return Status::Ok();
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Status start_task0(const LaunchInfo& li, const std::string& base, const std::string& step_dir, std::string* job_id,
                   std::string* rendezvous) {
  std::random_device rd;
  *job_id = strprintf("slurm-%s-%08x%08x", env_str("SLURM_JOB_ID").c_str(), rd(), rd());
  auto state = std::make_unique<DirectState>();
  const std::string tmp = strprintf("%s/.tmp-%d", base.c_str(), static_cast<int>(getpid()));
  NX_RETURN_IF_ERROR(tls::create_job_credentials(tmp, *job_id, li.world_size, &state->files)
                         .with_context("srun direct launch: job credentials"));
  state->dir = tmp;
  auto fail = [&](Status s) {
    g_state = state.release();
    cleanup_at_exit();
    return s;
  };
  std::shared_ptr<tls::Context> tls;
  if (Status s = tls::Context::load(state->files.launcher_file, &tls); !s.ok()) return fail(s);
  // Where the other tasks can reach us: toward srun's host, never loopback with many nodes.
  const std::string launch_ip = env_str("SLURM_LAUNCH_NODE_IPADDR");
  std::string ip;
  Status s = select_address_from_params(launch_ip.empty() ? "127.0.0.1:0" : launch_ip + ":0", &ip);
  if (!s.ok()) return fail(s);
  if (is_loopback_ip(ip) && li.num_nodes > 1) {
    std::vector<std::string> mine = interface_addresses("", "");
    if (mine.empty()) return fail(Status(NEXAR_ERR_SYSTEM, "srun direct launch: no non-loopback address for the rendezvous"));
    ip = mine.front();
  }
  if (Status e = rendezvous::Host::start(tls, ip, nullptr, &state->host); !e.ok()) return fail(e);
  *rendezvous = state->host->address();
  {
    std::ofstream f(tmp + "/job");
    f << *job_id << "\n" << *rendezvous << "\n";
    if (!f) return fail(Status(NEXAR_ERR_SYSTEM, "srun direct launch: cannot write " + tmp + "/job"));
  }
  // A directory left by an earlier step with the same ids (a crashed task 0) goes first.
  g_state = state.release();
  std::atexit(cleanup_at_exit);
  unlink((step_dir + "/job").c_str());
  for (int r = 0; r < li.world_size; ++r) unlink(strprintf("%s/rank-%d.pem", step_dir.c_str(), r).c_str());
  unlink((step_dir + "/launcher.pem").c_str());
  rmdir(step_dir.c_str());
  if (rename(tmp.c_str(), step_dir.c_str()) != 0)
    return Status(NEXAR_ERR_SYSTEM, "srun direct launch: cannot publish " + step_dir);
  g_state->dir = step_dir;
  NX_INFO(BOOT, "srun direct launch: task 0 serves the rendezvous at %s, job %s", rendezvous->c_str(), job_id->c_str());
  return Status::Ok();
}

}  // namespace

bool slurm_direct_launch() {
  // SLURM_STEP_ID: an srun step (a batch script has SLURM_PROCID=0 too, but no step id).
  return !param::NEXAR_RANK.is_set() && !param::NEXAR_WORLD_SIZE.is_set() && !env_str("SLURM_PROCID").empty() &&
         !env_str("SLURM_NTASKS").empty() && !env_str("SLURM_JOB_ID").empty() && !env_str("SLURM_STEP_ID").empty();
}

Status slurm_direct_setup(LaunchInfo* out) {
  LaunchInfo li;
  li.singleton = false;
  li.rank = env_int("SLURM_PROCID", -1);
  li.world_size = env_int("SLURM_STEP_NUM_TASKS", env_int("SLURM_NTASKS", 0));
  li.local_rank = env_int("SLURM_LOCALID", 0);
  li.node_rank = env_int("SLURM_NODEID", 0);
  li.num_nodes = env_int("SLURM_STEP_NUM_NODES", env_int("SLURM_NNODES", 1));
  li.local_size = 0;  // the world counts ranks per host identity itself
  if (li.world_size < 1 || li.rank < 0 || li.rank >= li.world_size)
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("SLURM_PROCID=%d / SLURM_NTASKS=%d are not a rank and a size", li.rank, li.world_size));
  if (li.world_size == 1) {
    li.singleton = true;
    *out = li;
    return Status::Ok();
  }
  std::string base;
  NX_RETURN_IF_ERROR(private_dir(&base));
  const std::string step = env_str("SLURM_JOB_ID") + "." + env_str("SLURM_STEP_ID");
  const std::string step_dir = base + "/slurm-" + step;
  if (li.rank == 0) {
    NX_RETURN_IF_ERROR(start_task0(li, base, step_dir, &li.job_id, &li.rendezvous));
  } else {
    // Wait for task 0's directory; one older than this wait began is a leftover.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(param::NEXAR_CONNECT_TIMEOUT.get() * 1000));
    const time_t began = time(nullptr) - 120;
    for (;;) {
      struct stat st;
      std::string job = read_all(step_dir + "/job");
      if (stat(step_dir.c_str(), &st) == 0 && st.st_ctime >= began && job.find('\n') != std::string::npos &&
          job.back() == '\n') {
        std::stringstream ss(job);
        ss >> li.job_id >> li.rendezvous;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline)
        return Status(NEXAR_ERR_TIMEOUT, "srun direct launch: task 0 did not publish " + step_dir +
                                             " in time (is it on a filesystem every node shares?)");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  li.credentials = strprintf("%s/rank-%d.pem", step_dir.c_str(), li.rank);
  *out = li;
  return Status::Ok();
}

}  // namespace nexar::bootstrap
