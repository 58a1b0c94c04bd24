// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/job_credentials.h"

#include "launcher/status_client.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "core/log.h"

namespace nexar::launcher {
namespace {

std::string temp_root() {
  const char* t = std::getenv("TMPDIR");
  std::string root = (t && *t) ? t : "/tmp";
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

}  // namespace

// Whatever create_job_credentials left (also after a failure half way): the plain files
// directly inside dir, then dir itself. The directory is ours alone (0700, random name).
void remove_credential_dir(const std::string& dir) {
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return;
  if (DIR* d = fdopendir(dfd)) {
    while (struct dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") unlinkat(dfd, name.c_str(), 0);
    }
    closedir(d);  // closes dfd
  } else {
    close(dfd);
  }
  if (rmdir(dir.c_str()) != 0) NX_WARN(LAUNCH, "could not remove credential directory %s", dir.c_str());
}

std::string JobCredentials::dir_for(const std::string& job_id) { return temp_root() + "/nexar-" + job_id; }

Status JobCredentials::create(const std::string& job_id, int nranks) {
  const std::string dir = dir_for(job_id);
  struct stat st;
  if (lstat(dir.c_str(), &st) == 0)
    return Status(NEXAR_ERR_SYSTEM, "credential directory " + dir + " already exists");
  files_.dir = dir;
  created_ = true;  // from here on, remove() cleans up whatever exists
  Status s = tls::create_job_credentials(dir, job_id, nranks, &files_);
  files_.dir = dir;
  if (!s.ok()) return s.with_context("creating the job credentials in " + dir);
  NX_INFO(LAUNCH, "job credentials for %d ranks in %s", nranks, dir.c_str());
  return Status::Ok();
}

void JobCredentials::remove() {
  if (!created_) return;
  created_ = false;
  ::unlink((files_.dir + "/" + kRendezvousFile).c_str());  // main.cc publish_rendezvous
  tls::remove_job_credentials(files_);
  remove_credential_dir(files_.dir);
  NX_INFO(LAUNCH, "removed %s", files_.dir.c_str());
}

}  // namespace nexar::launcher
