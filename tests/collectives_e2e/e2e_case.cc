// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "e2e_case.h"

#include <cstdio>
#include <cstring>

namespace e2e {

const char* kind_str(Kind k) {
  static const char* names[] = {"allreduce", "broadcast", "reduce",     "allgather", "reduce_scatter", "gather",
                                "scatter",   "alltoall",  "scan",       "exscan",    "barrier",        "allreduce_bucketed"};
  return names[static_cast<int>(k)];
}

bool kind_reduces(Kind k) {
  return k == Kind::ALLREDUCE || k == Kind::REDUCE || k == Kind::REDUCE_SCATTER || k == Kind::SCAN ||
         k == Kind::EXSCAN || k == Kind::BUCKETED;
}
bool kind_has_root(Kind k) {
  return k == Kind::BROADCAST || k == Kind::REDUCE || k == Kind::GATHER || k == Kind::SCATTER;
}

std::string Case::label() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s(count %zu, %s%s%s, root %d, %s, seed %u)", kind_str(kind), count,
                dtype_str(dtype), kind_reduces(kind) ? "/" : "", kind_reduces(kind) ? op_str(op) : "", root,
                in_place ? "in place" : "out of place", seed);
  return buf;
}

Prepared::Buf Prepared::fresh(size_t len) {
  Buf b;
  b.len = len;
  b.data.assign(len + kGuard, kSentinel);
  return b;
}

Prepared::Buf Prepared::holding(const Bytes& bytes) {
  Buf b = fresh(bytes.size());
  if (!bytes.empty()) std::memcpy(b.data.data(), bytes.data(), bytes.size());
  return b;
}

Prepared::Prepared(const Case& c, int rank, int size)
    : c_(c), rank_(rank), size_(size), es_(dtype_bytes(c.dtype)), nb_(c.count * dtype_bytes(c.dtype)) {
  const int r = rank, p = size;
  const size_t n = c.count;
  auto input = [&](size_t first, size_t count) { return make_input(r, first, count, c.dtype, c.op, c.data, c.seed); };
  auto blocks = [&](int owner, int nblocks) {  // owner's blocks 0..nblocks-1, nb_ bytes each
    Bytes all;
    for (int j = 0; j < nblocks; ++j) {
      const Bytes b = make_bytes(owner, j, nb_, c.seed);
      all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  };
  const bool root = r == c.root;
  switch (c.kind) {
    case Kind::ALLREDUCE: case Kind::SCAN: case Kind::EXSCAN:
      send_ = holding(input(0, n));
      recv_ = c.in_place ? holding(input(0, n)) : fresh(nb_);
      has_send_ = !c.in_place;
      has_recv_ = true;
      break;
    case Kind::REDUCE:
      send_ = holding(input(0, n));
      has_send_ = !(c.in_place && root);
      has_recv_ = root;
      if (root) recv_ = c.in_place ? holding(input(0, n)) : fresh(nb_);
      break;
    case Kind::BROADCAST:
      recv_ = root ? holding(make_bytes(r, 0, nb_, c.seed)) : fresh(nb_);
      has_recv_ = true;
      break;
    case Kind::ALLGATHER: case Kind::GATHER: {
      const bool gets = c.kind == Kind::ALLGATHER || root;
      send_ = holding(make_bytes(r, 0, nb_, c.seed));
      has_send_ = !(c.in_place && gets);
      has_recv_ = gets;
      if (gets) recv_ = fresh(nb_ * static_cast<size_t>(p));
      if (gets && c.in_place && nb_) std::memcpy(recv_.data.data() + static_cast<size_t>(r) * nb_, send_.data.data(), nb_);
      break;
    }
    case Kind::SCATTER:
      has_send_ = root;
      if (root) send_ = holding(blocks(r, p));
      has_recv_ = !(c.in_place && root);
      if (has_recv_) recv_ = fresh(nb_);
      break;
    case Kind::REDUCE_SCATTER:
      send_ = holding(input(0, n * static_cast<size_t>(p)));
      recv_ = c.in_place ? holding(input(0, n * static_cast<size_t>(p))) : fresh(nb_);
      has_send_ = !c.in_place;
      has_recv_ = true;
      break;
    case Kind::ALLTOALL:
      send_ = holding(blocks(r, p));
      recv_ = c.in_place ? holding(blocks(r, p)) : fresh(nb_ * static_cast<size_t>(p));
      has_send_ = !c.in_place;
      has_recv_ = true;
      break;
    case Kind::BARRIER:
      break;
    case Kind::BUCKETED: {
      const size_t counts[] = {n, 0, n / 2 + 1, 3, n / 3};
      size_t first = 0;
      for (size_t k : counts) {
        bucket_counts_.push_back(k);
        bucket_first_.push_back(first);
        buckets_.push_back(holding(input(first, k)));
        first += k;
      }
      for (Buf& b : buckets_) bucket_ptrs_.push_back(b.len ? b.data.data() : nullptr);
      break;
    }
  }
  if (has_send_) send_orig_ = send_.data;
  sendptr_ = has_send_ ? send_.p() : nullptr;
  recvptr_ = has_recv_ ? recv_.p() : nullptr;
  if (c.in_place) {  // sendbuf == recvbuf where this rank receives
    if (has_recv_ && !has_send_) sendptr_ = recvptr_;
    if (c.kind == Kind::SCATTER && root) recvptr_ = const_cast<void*>(sendptr_);
    // The other accepted spelling (even seeds): the pointer to this rank's own block.
    const size_t own = static_cast<size_t>(r) * nb_;
    if (c.seed % 2 == 0 && nb_ && (c.kind == Kind::ALLGATHER || (c.kind == Kind::GATHER && root)))
      sendptr_ = recv_.data.data() + own;
    if (c.seed % 2 == 0 && nb_ && c.kind == Kind::SCATTER && root) recvptr_ = send_.data.data() + own;
  }
  if (nb_ == 0 && c.kind != Kind::BUCKETED) sendptr_ = recvptr_ = nullptr;  // NULL is allowed with count 0
}

nexar_result_t Prepared::start(nexar_comm_t comm, nexar_request_t* req) {
  const void* s = sendptr_;
  void* d = recvptr_;
  const size_t n = c_.count;
  const nexar_dtype_t t = c_.dtype;
  const nexar_op_t op = c_.op;
  const int root = c_.root;
  const bool nb = req != nullptr;
  switch (c_.kind) {
    case Kind::ALLREDUCE: return nb ? nexar_iallreduce(s, d, n, t, op, comm, req) : nexar_allreduce(s, d, n, t, op, comm);
    case Kind::BROADCAST: return nb ? nexar_ibroadcast(d, n, t, root, comm, req) : nexar_broadcast(d, n, t, root, comm);
    case Kind::REDUCE:
      return nb ? nexar_ireduce(s, d, n, t, op, root, comm, req) : nexar_reduce(s, d, n, t, op, root, comm);
    case Kind::ALLGATHER: return nb ? nexar_iallgather(s, d, n, t, comm, req) : nexar_allgather(s, d, n, t, comm);
    case Kind::REDUCE_SCATTER:
      return nb ? nexar_ireduce_scatter(s, d, n, t, op, comm, req) : nexar_reduce_scatter(s, d, n, t, op, comm);
    case Kind::GATHER: return nb ? nexar_igather(s, d, n, t, root, comm, req) : nexar_gather(s, d, n, t, root, comm);
    case Kind::SCATTER: return nb ? nexar_iscatter(s, d, n, t, root, comm, req) : nexar_scatter(s, d, n, t, root, comm);
    case Kind::ALLTOALL: return nb ? nexar_ialltoall(s, d, n, t, comm, req) : nexar_alltoall(s, d, n, t, comm);
    case Kind::SCAN: return nb ? nexar_iscan(s, d, n, t, op, comm, req) : nexar_scan(s, d, n, t, op, comm);
    case Kind::EXSCAN: return nb ? nexar_iexscan(s, d, n, t, op, comm, req) : nexar_exscan(s, d, n, t, op, comm);
    case Kind::BARRIER: return nb ? nexar_ibarrier(comm, req) : nexar_barrier(comm);
    case Kind::BUCKETED:
      return nb ? nexar_iallreduce_bucketed(bucket_ptrs_.data(), bucket_counts_.data(), bucket_ptrs_.size(), t, op,
                                            comm, req)
                : nexar_allreduce_bucketed(bucket_ptrs_.data(), bucket_counts_.data(), bucket_ptrs_.size(), t, op, comm);
  }
  return NEXAR_ERR_INTERNAL;
}

Bytes Prepared::expected() const {
  const int r = rank_, p = size_;
  const size_t n = c_.count;
  auto ref = [&](int lo, int hi, size_t first) { return reference(lo, hi, first, n, c_.dtype, c_.op, c_.data, c_.seed); };
  switch (c_.kind) {
    case Kind::ALLREDUCE: case Kind::REDUCE: return ref(0, p, 0);
    case Kind::SCAN: return ref(0, r + 1, 0);
    case Kind::EXSCAN: return r == 0 ? identity(n, c_.dtype, c_.op) : ref(0, r, 0);
    case Kind::REDUCE_SCATTER: return ref(0, p, static_cast<size_t>(r) * n);  // block r
    case Kind::BROADCAST: return make_bytes(c_.root, 0, nb_, c_.seed);
    case Kind::SCATTER: return make_bytes(c_.root, r, nb_, c_.seed);
    case Kind::ALLGATHER: case Kind::GATHER: case Kind::ALLTOALL: {
      Bytes all;
      for (int j = 0; j < p; ++j) {  // alltoall: block j is rank j's block r
        const Bytes b = c_.kind == Kind::ALLTOALL ? make_bytes(j, r, nb_, c_.seed) : make_bytes(j, 0, nb_, c_.seed);
        all.insert(all.end(), b.begin(), b.end());
      }
      return all;
    }
    default: return {};
  }
}

std::string Prepared::check(const Buf& b, size_t offset, const Bytes& want, const char* what) const {
  std::string d = first_difference(b.data.data() + offset, want.data(), want.size(), es_);
  if (!d.empty()) return std::string(what) + ": " + d;
  return check_guard(b, what);
}

std::string Prepared::check_guard(const Buf& b, const char* what) const {
  for (size_t i = b.len; i < b.data.size(); ++i)
    if (b.data[i] != kSentinel) return std::string(what) + ": written past its end (guard byte " + std::to_string(i - b.len) + ")";
  return "";
}

std::string Prepared::verify() const {
  std::string e;
  if (c_.kind == Kind::BUCKETED) {
    for (size_t k = 0; k < buckets_.size() && e.empty(); ++k) {
      const Bytes want = reference(0, size_, bucket_first_[k], bucket_counts_[k], c_.dtype, c_.op, c_.data, c_.seed);
      e = check(buckets_[k], 0, want, ("bucket " + std::to_string(k)).c_str());
    }
  } else if (c_.kind == Kind::SCATTER && rank_ == c_.root && c_.in_place) {
    // The root's block stays where it is; its sendbuf is unchanged.
    Bytes all;
    for (int j = 0; j < size_; ++j) {
      const Bytes b = make_bytes(rank_, j, nb_, c_.seed);
      all.insert(all.end(), b.begin(), b.end());
    }
    e = check(send_, 0, all, "root's sendbuf");
  } else if (has_recv_ && c_.kind != Kind::BARRIER) {
    e = check(recv_, 0, expected(), "recvbuf");
  }
  if (e.empty() && has_send_ && c_.kind != Kind::BARRIER) {  // inputs are never written
    e = send_.data == send_orig_ ? "" : "sendbuf (an input) was written";
  }
  return e.empty() ? e : c_.label() + " on rank " + std::to_string(rank_) + ": " + e;
}

std::string Prepared::verify_part(size_t first, size_t count) const {
  if (c_.kind != Kind::ALLREDUCE) return c_.label() + ": verify_part handles allreduce only";
  const Bytes want = reference(0, size_, first, count, c_.dtype, c_.op, c_.data, c_.seed);
  std::string e = first_difference(recv_.data.data() + first * es_, want.data(), want.size(), es_);
  if (e.empty()) e = check_guard(recv_, "recvbuf");
  if (e.empty() && has_send_ && send_.data != send_orig_) e = "sendbuf (an input) was written";
  return e.empty() ? e : c_.label() + " on rank " + std::to_string(rank_) + ", elements from " + std::to_string(first) + ": " + e;
}

uint64_t Prepared::result_hash() const {
  if (c_.kind == Kind::BUCKETED) {
    uint64_t h = 0;
    for (const Buf& b : buckets_) h = h * 31 + hash_bytes(b.data.data(), b.len);
    return h;
  }
  const size_t len = c_.kind == Kind::REDUCE_SCATTER ? nb_ : recv_.len;
  return has_recv_ ? hash_bytes(recv_.data.data(), len) : 0;
}

}  // namespace e2e
