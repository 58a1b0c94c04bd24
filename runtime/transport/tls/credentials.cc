// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/tls/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "transport/tls/cert_issue.h"
#include "transport/tls/cert_names.h"

namespace nexar::tls {
namespace {

constexpr int kMaxRanks = 1 << 20;

Status write_private_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status(NEXAR_ERR_SYSTEM, strprintf("creating %s: %s", path.c_str(), std::strerror(errno)));
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      return Status(NEXAR_ERR_SYSTEM, strprintf("writing %s: %s", path.c_str(), std::strerror(err)));
    }
    off += static_cast<size_t>(n);
  }
  // The umask may only remove bits, but say 0600 explicitly anyway.
  if (::fchmod(fd, 0600) != 0 || ::close(fd) != 0)
    return Status(NEXAR_ERR_SYSTEM, strprintf("finishing %s: %s", path.c_str(), std::strerror(errno)));
  return Status::Ok();
}

Status write_all(const IssuedCa& ca, const std::string& job_id, int nranks, JobCredentialFiles* files) {
  std::string ca_pem;
  NX_RETURN_IF_ERROR(export_pem(ca.crt.h, &ca_pem));
  std::string pem;
  NX_RETURN_IF_ERROR(issue_party_pem(ca, ca_pem, job_id, kLauncherRank, &pem));
  files->launcher_file = files->dir + "/launcher.pem";
  NX_RETURN_IF_ERROR(write_private_file(files->launcher_file, pem));
  for (int r = 0; r < nranks; ++r) {
    NX_RETURN_IF_ERROR(issue_party_pem(ca, ca_pem, job_id, r, &pem));
    files->rank_files.push_back(files->dir + "/rank-" + std::to_string(r) + ".pem");
    NX_RETURN_IF_ERROR(write_private_file(files->rank_files.back(), pem));
  }
  return Status::Ok();
}

}  // namespace

std::string Identity::to_string() const {
  if (rank == kLauncherRank) return "job " + job_id + " launcher";
  return "job " + job_id + " rank " + std::to_string(rank);
}

Status create_job_credentials(const std::string& dir, const std::string& job_id, int nranks,
                              JobCredentialFiles* out) {
  if (!names::valid_job_id(job_id))
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  "job id '" + job_id + "' must be 1-64 characters of letters, digits, '.', '_' or '-'");
  if (nranks < 0 || nranks > kMaxRanks)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("rank count %d out of range 0..%d", nranks, kMaxRanks));
  if (dir.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "empty credential directory name");
  if (::mkdir(dir.c_str(), 0700) != 0)
    return Status(NEXAR_ERR_SYSTEM, strprintf("creating credential directory %s: %s", dir.c_str(), std::strerror(errno)));
  JobCredentialFiles files;
  files.dir = dir;
  Status st;
  if (::chmod(dir.c_str(), 0700) != 0)
    st = Status(NEXAR_ERR_SYSTEM, strprintf("chmod 0700 %s: %s", dir.c_str(), std::strerror(errno)));
  IssuedCa ca;
  if (st.ok()) st = issue_ca(job_id, &ca);
  if (st.ok()) st = write_all(ca, job_id, nranks, &files);
  if (!st.ok()) {
    remove_job_credentials(files);
    return st.with_context("job credentials");
  }
  NX_INFO(TLS, "job %s: CA and %d + 1 credentials in %s", job_id.c_str(), nranks, dir.c_str());
  *out = std::move(files);
  return Status::Ok();
}

void remove_job_credentials(const JobCredentialFiles& files) {
  if (!files.launcher_file.empty()) ::unlink(files.launcher_file.c_str());
  for (const auto& f : files.rank_files) ::unlink(f.c_str());
  if (!files.dir.empty() && ::rmdir(files.dir.c_str()) != 0 && errno != ENOENT)
    NX_WARN(TLS, "removing credential directory %s: %s", files.dir.c_str(), std::strerror(errno));
}

}  // namespace nexar::tls
