// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One collective call of an end-to-end test, through the public C API: Prepared builds
// this rank's buffers (inputs from e2e_reference.h, outputs pre-filled with a sentinel and
// followed by guard bytes), starts the call blocking or non-blocking, and afterwards
// checks the result against the locally computed reference and the guards.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "e2e_reference.h"
#include "nexar/nexar.h"

namespace e2e {

enum class Kind {
  ALLREDUCE, BROADCAST, REDUCE, ALLGATHER, REDUCE_SCATTER, GATHER, SCATTER, ALLTOALL, SCAN, EXSCAN, BARRIER, BUCKETED
};
constexpr int kKindCount = 12;
const char* kind_str(Kind k);
bool kind_reduces(Kind k);   // takes an op
bool kind_has_root(Kind k);

struct Case {
  Kind kind = Kind::BARRIER;
  size_t count = 0;  // as the API counts it for this kind
  nexar_dtype_t dtype = NEXAR_INT32;
  nexar_op_t op = NEXAR_SUM;
  int root = 0;
  bool in_place = false;
  DataKind data = DataKind::EXACT;
  uint32_t seed = 0;  // varies the inputs between calls
  std::string label() const;
};

class Prepared {
 public:
  Prepared(const Case& c, int rank, int size);
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;

  // Blocking when req is NULL, else the nexar_i* variant.
  nexar_result_t start(nexar_comm_t comm, nexar_request_t* req);
  // "" when this rank's result and guards are right, else what is wrong.
  std::string verify() const;
  // For allreduce and broadcast of large vectors: checks only elements [first, first+count)
  // of the result (pair it with result_hash() compared across ranks, each rank checking
  // its own slice, to check everything at a p-th of the reference's cost).
  std::string verify_part(size_t first, size_t count) const;
  // Hash of this rank's result (for bit identity across ranks).
  uint64_t result_hash() const;
  const Case& c() const { return c_; }

 private:
  struct Buf {
    Bytes data;      // payload followed by kGuard guard bytes
    size_t len = 0;  // payload bytes
    unsigned char* p() { return len || !data.empty() ? data.data() : nullptr; }
  };
  static constexpr size_t kGuard = 32;
  static constexpr unsigned char kSentinel = 0xCD;
  static Buf fresh(size_t len);
  static Buf holding(const Bytes& b);
  std::string check(const Buf& b, size_t offset, const Bytes& want, const char* what) const;
  std::string check_guard(const Buf& b, const char* what) const;
  Bytes expected() const;  // what this rank's output (at its result offset) must hold

  Case c_;
  int rank_, size_;
  size_t es_, nb_;
  Buf send_, recv_;
  Bytes send_orig_;  // send_ as prepared, to check that inputs are never written
  bool has_send_ = false, has_recv_ = false;
  const void* sendptr_ = nullptr;
  void* recvptr_ = nullptr;
  // Bucketed allreduce: one buffer per bucket.
  std::vector<size_t> bucket_counts_, bucket_first_;
  std::vector<Buf> buckets_;
  std::vector<void*> bucket_ptrs_;
};

}  // namespace e2e
