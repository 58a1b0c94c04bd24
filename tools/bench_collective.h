// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One collective as nexar-bench measures it: buffers for a size in bytes (counted as
// nccl-tests count them), filled with values whose result is known exactly, the call
// through the C API, and the check of one result against a locally computed expectation.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "nexar/nexar.h"

namespace nexar_bench {

// "allreduce", ..., "barrier": the collectives nexar-bench knows, in table order.
const std::vector<std::string>& collective_names();
bool parse_dtype(const std::string& s, nexar_dtype_t* out);
bool parse_op(const std::string& s, nexar_op_t* out);
const char* dtype_label(nexar_dtype_t d);
const char* op_label(nexar_op_t op);

class BenchCollective {
 public:
  BenchCollective(std::string name, int rank, int size, nexar_dtype_t dtype, nexar_op_t op, int root);
  // Sizes the buffers for `bytes` (page-aligned, touched) and fills the inputs.
  void prepare(size_t bytes);
  size_t count() const { return count_; }  // the count argument of the call
  size_t bytes() const { return bytes_; }  // the size as reported (may round `bytes` down)
  bool reduces() const { return reduces_; }
  nexar_result_t run(nexar_comm_t comm);
  // After one run on freshly prepared inputs: true when this rank's result is right.
  // `why` gets the first wrong element.
  bool check(std::string* why) const;

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  using Buffer = std::unique_ptr<unsigned char, Free>;
  static Buffer page_aligned(size_t bytes);
  double value(int rank, size_t i) const;  // input element i of rank
  double expected(size_t i) const;         // this rank's output element i
  void store(unsigned char* p, size_t i, double v) const;
  double load(const unsigned char* p, size_t i) const;
  // The nexar call that run() makes, picked once from the name: comparing names on every
  // call (up to 16 string compares) was a measurable part of a sub-microsecond barrier.
  using CallFn = nexar_result_t (*)(BenchCollective& b, nexar_comm_t comm);
  static CallFn pick_call(const std::string& call, const std::string& name);
  const void* sbuf() const { return send_elems_ ? send_.get() : nullptr; }
  void* rbuf() { return recv_elems_ ? recv_.get() : nullptr; }

  std::string call_;  // as asked for ("alltoallv_skew")
  std::string name_;  // the fixed-count collective it moves the data of ("alltoall")
  bool reduces_;      // name_ combines the ranks' data
  int rank_, size_;
  nexar_dtype_t dtype_;
  nexar_op_t op_;
  int root_;
  size_t es_, count_ = 0, bytes_ = 0, send_elems_ = 0, recv_elems_ = 0;
  Buffer send_, recv_;
  // The collectives with a count per rank: elements to / from each rank and their offsets.
  std::vector<size_t> vcounts_to_, vcounts_from_, vdispls_to_, vdispls_from_;
  CallFn call_fn_;
};

}  // namespace nexar_bench
