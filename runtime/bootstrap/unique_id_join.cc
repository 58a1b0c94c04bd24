// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bootstrap/unique_id_join.h"

#include <string>

#include "core/fault.h"
#include "core/log.h"
#include "core/remote_status.h"
#include "rendezvous/kv_store.h"  // parse_int64

namespace nexar::bootstrap {
namespace {

constexpr int64_t kPoison = int64_t{1} << 40;
constexpr const char* kJoining = "uid/joining";
constexpr const char* kOk = "ok";
constexpr const char* kFailed = "failed: ";
constexpr int kMaxMissingNamed = 16;

// Makes "uid/joined" unreachable and, if the world was not complete yet, tells everyone why.
Status fail_all(rendezvous::Client& rv, int size, Status why, std::chrono::milliseconds timeout) {
  int64_t now = 0;
  if (rv.add("uid/joined", -kPoison, &now, timeout).ok() && now + kPoison < size)
    (void)rv.set("uid/done", kFailed + std::to_string(static_cast<int>(why.code())) + " " + why.message(), timeout);
  return why;
}

// "ranks 2, 5" of those that never claimed their rank (the first few).
std::string missing_ranks(rendezvous::Client& rv, int size, std::chrono::milliseconds timeout) {
  std::string names;
  int count = 0;
  for (int p = 0; p < size && count < kMaxMissingNamed; ++p) {
    std::string v;
    bool found = false;
    if (!rv.get("uid/claim/" + std::to_string(p), &v, &found, timeout).ok()) break;
    if (found) continue;
    names += (count++ ? ", " : "") + std::to_string(p);
  }
  if (count == 0) return "";
  return (count == 1 ? "rank " : "ranks ") + names + (count == kMaxMissingNamed ? ", ..." : "");
}

Status join_steps(rendezvous::Client& rv, int rank, int size, std::chrono::milliseconds timeout) {
  int64_t n = 0;
  NX_RETURN_IF_ERROR(rv.add("uid/sizers", 1, &n, timeout));
  if (n == 1) {
    NX_RETURN_IF_ERROR(rv.set("uid/size", std::to_string(size), timeout));
  } else {
    std::string first;
    NX_RETURN_IF_ERROR(rv.wait("uid/size", &first, timeout).with_context("waiting for the job's size"));
    if (first != std::to_string(size))
      return fail_all(rv, size,
                      Status(NEXAR_ERR_MISMATCH,
                             strprintf("rank %d passed size %d, the first process to join passed size %s (every "
                                       "process must pass the same size)",
                                       rank, size, first.c_str())),
                      timeout);
  }
  NX_RETURN_IF_ERROR(rv.add("uid/claim/" + std::to_string(rank), 1, &n, timeout));
  if (n > 1)
    return fail_all(rv, size,
                    Status(NEXAR_ERR_INVALID_ARGUMENT,
                           strprintf("two processes passed rank %d (each rank of the job joins once)", rank)),
                    timeout);
  NX_RETURN_IF_ERROR(rv.add("uid/joined", 1, &n, timeout));
  if (n == size) NX_RETURN_IF_ERROR(rv.set("uid/done", kOk, timeout));
  fault::stop_point("uid_joined", rank);  // testing only (NEXAR_FAULT_STOP)
  std::string done;
  Status st = rv.wait("uid/done", &done, timeout);
  if (st.code() == NEXAR_ERR_TIMEOUT) {
    std::string missing = missing_ranks(rv, size, timeout);
    return fail_all(rv, size,
                    Status(NEXAR_ERR_TIMEOUT,
                           strprintf("%s of %d did not join within %.0f s (NEXAR_CONNECT_TIMEOUT)",
                                     missing.empty() ? "some ranks" : missing.c_str(), size,
                                     std::chrono::duration<double>(timeout).count())),
                    timeout);
  }
  NX_RETURN_IF_ERROR(st);
  if (done == kOk) return Status::Ok();
  // "failed: <code> <reason>": another process's failure, with its code.
  const std::string rest = done.rfind(kFailed, 0) == 0 ? done.substr(std::string(kFailed).size()) : "";
  const size_t sp = rest.find(' ');
  int64_t code = 0;
  if (sp != std::string::npos && rendezvous::parse_int64(rest.substr(0, sp), &code) && code < 0)
    return remote_failure(code, rest.substr(sp + 1));
  return Status(NEXAR_ERR_PROTOCOL, "uid/done holds '" + done + "'");
}

}  // namespace

Status unique_id_join(rendezvous::Client& rv, int rank, int size, std::chrono::milliseconds timeout) {
  int64_t n = 0;
  NX_RETURN_IF_ERROR(rv.add(kJoining, 1, &n, timeout));
  Status st = join_steps(rv, rank, size, timeout);
  (void)rv.add(kJoining, -1, &n, timeout);  // fails at once if the rendezvous is gone
  return st;
}

bool unique_id_joins_settled(const rendezvous::KvStore& store) {
  const std::string* v = store.get(kJoining);
  int64_t n = 0;
  return v == nullptr || !rendezvous::parse_int64(*v, &n) || n <= 0;
}

}  // namespace nexar::bootstrap
