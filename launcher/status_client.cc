// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/status_client.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/params.h"
#include "core/thread_name.h"
#include "launcher/job_credentials.h"
#include "launcher/json_value.h"
#include "rendezvous/rendezvous.h"
#include "transport/quic/endpoint.h"

namespace nexar::launcher {
namespace {

using std::chrono::milliseconds;

int fail(const std::string& what) {
  std::fprintf(stderr, "nexrun --status: %s\n", what.c_str());
  return 1;
}

bool read_first_line(const std::string& path, std::string* out) {
  std::ifstream f(path);
  return static_cast<bool>(std::getline(f, *out)) && !out->empty();
}

// The directories of this user's running jobs (those with a rendezvous file).
std::vector<std::string> running_job_dirs() {
  const std::string root = JobCredentials::dir_for("");  // ".../nexar-"
  const std::string parent = root.substr(0, root.rfind('/'));
  const std::string prefix = root.substr(root.rfind('/') + 1);
  std::vector<std::string> out;
  if (DIR* d = opendir(parent.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      std::string ignored;
      if (name.rfind(prefix, 0) == 0 && read_first_line(parent + "/" + name + "/" + kRendezvousFile, &ignored))
        out.push_back(parent + "/" + name);
    }
    closedir(d);
  }
  return out;
}

// One line per rank and the report's culprit line, from the /status document.
void print_status(const JsonValue& doc) {
  std::printf("nexrun: job %s: %s, %lld rank(s)\n", doc["job_id"].text("?").c_str(), doc["state"].text("?").c_str(),
              static_cast<long long>(doc["world_size"].integer(0)));
  for (const JsonValue& r : doc["ranks"].array) {
    std::string now = r["current"].text();
    if (now.empty()) now = r["state"].text() == "running" ? "did not answer" : "-";
    std::printf("nexrun:   rank %lld (pid %lld, %s): %s\n", static_cast<long long>(r["rank"].integer()),
                static_cast<long long>(r["pid"].integer()), r["state"].text("?").c_str(), now.c_str());
  }
  const std::string report = doc["report"].text();
  if (!report.empty()) std::fputs(report.c_str(), stdout);
}

}  // namespace

int status_main(const std::string& job) {
  std::string dir;
  if (job.empty()) {
    std::vector<std::string> dirs = running_job_dirs();
    if (dirs.size() != 1) {
      std::string list;
      for (const std::string& d : dirs) list += " " + d.substr(d.rfind("nexar-") + 6);
      return fail(dirs.empty() ? "no running job of this user found" : "several jobs run; name one of:" + list);
    }
    dir = dirs[0];
  } else {
    dir = job.find('/') != std::string::npos ? job : JobCredentials::dir_for(job);
  }
  std::string address;
  if (!read_first_line(dir + "/" + kRendezvousFile, &address))
    return fail("no running job at " + dir + " (or not this user's)");
  std::shared_ptr<tls::Context> tls;
  if (Status s = tls::Context::load(dir + "/launcher.pem", &tls); !s.ok()) return fail(s.to_string());
  quic::EndpointConfig config = quic::endpoint_config_from_params(tls);
  const bool v6 = !address.empty() && address[0] == '[';
  config.bind_address = address.rfind("127.", 0) == 0 ? "127.0.0.1" : v6 ? "::" : "0.0.0.0";
  std::unique_ptr<quic::Endpoint> endpoint;
  if (Status s = quic::Endpoint::create(config, &endpoint); !s.ok()) return fail(s.to_string());
  endpoint->post([] { name_this_thread("nexrun-status"); });  // its progress thread
  std::unique_ptr<rendezvous::Client> client;
  const milliseconds step(5000);
  if (Status s = rendezvous::Client::connect(endpoint.get(), address, step, &client); !s.ok())
    return fail(s.to_string());
  // A quiet round: every rank's current call, fresh.
  std::string next, ignored, json;
  bool found = false;
  if (client->get("dump/next", &next, &found, step).ok() && found && client->set("dump/" + next, "status", step).ok()) {
    const double limit = param::NEXAR_REPORT_TIMEOUT.get();
    Status w = client->wait("dump/" + next + "/done", &ignored, milliseconds(static_cast<int64_t>(limit * 1000)) + step);
    if (!w.ok()) std::fprintf(stderr, "nexrun --status: no fresh round (%s); the calls shown may be older\n", w.to_string().c_str());
  }
  if (Status s = client->status(&json, step); !s.ok()) return fail(s.to_string());
  JsonValue doc;
  std::string error;
  if (!parse_json(json, &doc, &error)) return fail("the status is not JSON: " + error);
  print_status(doc);
  client.reset();
  return 0;
}

}  // namespace nexar::launcher
