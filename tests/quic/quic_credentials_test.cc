// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Job credentials: files, modes, identities, loading errors, gtlsclient compatibility.
#include <gnutls/gnutls.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>

#include "quic_test_util.h"

using namespace nexar;
using nexar::quic::test::Job;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("credentials: files, modes and PEM order", "[quic][tls]") {
  Job job(3, "job-A1");
  const auto& f = job.files();
  REQUIRE(f.rank_files.size() == 3);
  CHECK(f.launcher_file == f.dir + "/launcher.pem");
  CHECK(f.rank_files[2] == f.dir + "/rank-2.pem");
  CHECK(mode_of(f.dir) == 0700);
  for (const auto& file : f.rank_files) {
    CHECK(mode_of(file) == 0600);
    std::string text = slurp(file);
    size_t c1 = text.find("-----BEGIN CERTIFICATE-----");
    size_t c2 = text.find("-----BEGIN CERTIFICATE-----", c1 + 1);
    size_t k = text.find("-----BEGIN PRIVATE KEY-----");
    CHECK(c1 == 0);
    CHECK(c2 != std::string::npos);
    CHECK(k != std::string::npos);
    CHECK(c2 < k);
  }
  // The CA certificate is the same in every file.
  auto ca_of = [&](const std::string& file) {
    std::string t = slurp(file);
    size_t c2 = t.find("-----BEGIN CERTIFICATE-----", 1);
    return t.substr(c2, t.find("-----BEGIN PRIVATE KEY-----") - c2);
  };
  CHECK(ca_of(f.rank_files[0]) == ca_of(f.launcher_file));
}

TEST_CASE("credentials: identities parse back", "[quic][tls]") {
  Job job(4, "job.B_2-x");
  for (int r = 0; r < 4; ++r) {
    auto ctx = job.rank(r);
    CHECK(ctx->self().job_id == "job.B_2-x");
    CHECK(ctx->self().rank == r);
  }
  auto l = job.launcher();
  CHECK(l->self().rank == tls::kLauncherRank);
  CHECK(l->self().to_string() == "job job.B_2-x launcher");
  CHECK(job.rank(3)->self().to_string() == "job job.B_2-x rank 3");
}

TEST_CASE("credentials: GnuTLS loads the file as cert and key (gtlsclient --cert=F --key=F)", "[quic][tls]") {
  Job job(1);
  for (const std::string& file : {job.files().rank_files[0], job.files().launcher_file}) {
    gnutls_certificate_credentials_t cred;
    REQUIRE(gnutls_certificate_allocate_credentials(&cred) == 0);
    int rc = gnutls_certificate_set_x509_key_file(cred, file.c_str(), file.c_str(), GNUTLS_X509_FMT_PEM);
    INFO(file << ": " << gnutls_strerror(rc));
    CHECK(rc >= 0);
    gnutls_certificate_free_credentials(cred);
  }
}

TEST_CASE("credentials: 64 ranks in well under a second, and removal", "[quic][tls]") {
  char tmpl[] = "/tmp/nexar-cred-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string dir = std::string(tmpl) + "/c";
  tls::JobCredentialFiles files;
  auto t0 = std::chrono::steady_clock::now();
  Status st = tls::create_job_credentials(dir, "big", 64, &files);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(st.ok());
  WARN("64 ranks + launcher: " << secs * 1000 << " ms");
  CHECK(secs < 0.5);
  CHECK(files.rank_files.size() == 64);
  // An existing directory is refused.
  tls::JobCredentialFiles again;
  CHECK(tls::create_job_credentials(dir, "big", 1, &again).code() == NEXAR_ERR_SYSTEM);
  tls::remove_job_credentials(files);
  CHECK(::access(dir.c_str(), F_OK) != 0);
  ::rmdir(tmpl);
}

TEST_CASE("credentials: bad arguments", "[quic][tls]") {
  tls::JobCredentialFiles files;
  CHECK(tls::create_job_credentials("/tmp/nexar-never", "bad,id", 1, &files).code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(tls::create_job_credentials("/tmp/nexar-never", "", 1, &files).code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(tls::create_job_credentials("/tmp/nexar-never", "ok", -1, &files).code() == NEXAR_ERR_INVALID_ARGUMENT);
  CHECK(tls::create_job_credentials("/nonexistent-parent/x", "ok", 1, &files).code() == NEXAR_ERR_SYSTEM);
}

TEST_CASE("credentials: load refuses missing, exposed and malformed files", "[quic][tls]") {
  Job job(1);
  std::shared_ptr<tls::Context> ctx;
  Status st = tls::Context::load(job.parent_dir() + "/missing.pem", &ctx);
  CHECK(st.code() == NEXAR_ERR_AUTH);

  const std::string file = job.files().rank_files[0];
  REQUIRE(::chmod(file.c_str(), 0640) == 0);
  st = tls::Context::load(file, &ctx);
  CHECK(st.code() == NEXAR_ERR_AUTH);
  CHECK(st.message().find("mode 0640") != std::string::npos);
  REQUIRE(::chmod(file.c_str(), 0600) == 0);
  CHECK(tls::Context::load(file, &ctx).ok());

  auto write_variant = [&](const std::string& name, const std::string& text) {
    std::string path = job.parent_dir() + "/" + name;
    { std::ofstream(path) << text; }
    ::chmod(path.c_str(), 0600);
    Status s = tls::Context::load(path, &ctx);
    ::unlink(path.c_str());
    return s;
  };
  std::string text = slurp(file);
  size_t key = text.find("-----BEGIN PRIVATE KEY-----");
  size_t ca = text.find("-----BEGIN CERTIFICATE-----", 1);
  CHECK(write_variant("garbage.pem", "not a credential\n").code() == NEXAR_ERR_AUTH);
  CHECK(write_variant("nokey.pem", text.substr(0, key)).code() == NEXAR_ERR_AUTH);
  CHECK(write_variant("noca.pem", text.substr(0, ca) + text.substr(key)).code() == NEXAR_ERR_AUTH);
  // Another job's key with this certificate: the key does not match.
  Job other(1, "other");
  std::string other_text = slurp(other.files().rank_files[0]);
  Status mixed = write_variant("mixed.pem", text.substr(0, key) + other_text.substr(other_text.find("-----BEGIN PRIVATE KEY-----")));
  CHECK(mixed.code() == NEXAR_ERR_AUTH);
}
