// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A real job (security_probe under nexrun, 3 ranks) for attacks: started, then the
// rendezvous address and rank 2's credential read from what the ranks print; rank 0's
// data-plane address read from the rendezvous as a holder of rank 2's credential may;
// finish() lets the ranks check their messages and requires the job to end unharmed.
// Include after <catch.hpp>.
#pragma once

#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "launcher/nexrun_process.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"

namespace security_test {

using namespace std::chrono_literals;

inline std::string field(const std::string& text, const std::string& key) {
  size_t p = text.find(key);
  REQUIRE(p != std::string::npos);
  p += key.size();
  return text.substr(p, text.find_first_of(" \n", p) - p);
}

struct AttackedJob {
  std::string dir, go, rdv, cred2;
  std::unique_ptr<launcher_test::NexrunProcess> job;

  AttackedJob(const std::string& name, const std::vector<std::string>& nexrun_opts, std::vector<std::string> env) {
    std::string tmpl = "/tmp/" + name + "-XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()));
    dir = tmpl;
    go = dir + "/go";
    std::vector<std::string> args = {"-np", "3"};
    args.insert(args.end(), nexrun_opts.begin(), nexrun_opts.end());
    args.push_back(SECURITY_PROBE);
    env.push_back("SECURITY_GO_FILE=" + go);
    job = std::make_unique<launcher_test::NexrunProcess>(args, env);
    REQUIRE(job->wait_for_stdout("ready rank=", 3, 30s));
    const std::string out = job->out();
    rdv = field(out, "rdv=");
    cred2 = field(out.substr(out.find("ready rank=2")), "cred=");
  }

  // Rank 0's address (its rendezvous entry's first field).
  std::string rank0_address() const {
    std::shared_ptr<nexar::tls::Context> rank2;
    REQUIRE(nexar::tls::Context::load(cred2, &rank2).ok());
    std::unique_ptr<nexar::quic::Endpoint> ep;
    REQUIRE(nexar::quic::Endpoint::create(nexar::quic::endpoint_config_from_params(rank2), &ep).ok());
    std::unique_ptr<nexar::rendezvous::Client> rc;
    REQUIRE(nexar::rendezvous::Client::connect(ep.get(), rdv, 10s, &rc).ok());
    std::string addr0;
    REQUIRE(rc->wait("addr/0", &addr0, 10s).ok());
    return addr0.substr(0, addr0.find(' '));
  }

  // The ranks exchange their messages (any injected one would fail them) and end.
  void finish() {
    std::ofstream(go) << "go\n";
    launcher_test::Ended end = job->wait(60s);
    INFO("stdout:\n" << job->out() << "\nstderr:\n" << job->err());
    CHECK(end.finished);
    CHECK(end.exit_code == 0);
    CHECK(launcher_test::count_of(job->out(), "job ok") == 3);
    unlink(go.c_str());
    rmdir(dir.c_str());
  }
};

}  // namespace security_test
