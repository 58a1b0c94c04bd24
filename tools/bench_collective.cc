// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "bench_collective.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "core/dtype.h"

namespace nexar_bench {
namespace {

const char* kDtypeNames[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "bfloat16",
                             "float32", "float64"};
const char* kOpNames[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};  // nexar_op_t order

bool is_unsigned(nexar_dtype_t d) { return d == NEXAR_UINT8 || d == NEXAR_UINT32 || d == NEXAR_UINT64; }
bool is_float(nexar_dtype_t d) { return d >= NEXAR_FLOAT16; }

}  // namespace

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names = {"allreduce", "broadcast", "reduce",  "allgather", "reduce_scatter",
                                                 "gather",    "scatter",   "alltoall", "scan",     "exscan",
                                                 "barrier",   "allgatherv", "gatherv", "scatterv", "alltoallv",
                                                 "alltoallv_skew", "reduce_scatter_v"};
  return names;
}

bool parse_dtype(const std::string& s, nexar_dtype_t* out) {
  for (int i = 0; i < 10; ++i)
    if (s == kDtypeNames[i]) return *out = static_cast<nexar_dtype_t>(i), true;
  return false;
}
bool parse_op(const std::string& s, nexar_op_t* out) {
  for (int i = 0; i < static_cast<int>(std::size(kOpNames)); ++i)
    if (s == kOpNames[i]) return *out = static_cast<nexar_op_t>(i), true;
  return false;
}
const char* dtype_label(nexar_dtype_t d) { return kDtypeNames[d]; }
const char* op_label(nexar_op_t op) { return kOpNames[op]; }

namespace {
// The collectives with a count per rank run with every count equal (so they move what
// their fixed-count namesakes move and are checked alike), except alltoallv_skew.
std::string fixed_count_name(const std::string& name) {
  if (name == "alltoallv" || name == "alltoallv_skew") return "alltoall";
  if (name == "reduce_scatter_v") return "reduce_scatter";
  if (name == "allgatherv" || name == "gatherv" || name == "scatterv") return name.substr(0, name.size() - 1);
  return name;
}
// Whether it combines the ranks' data (value() asks once per element, so it is kept).
bool combines(const std::string& name) {
  return name == "allreduce" || name == "reduce" || name == "reduce_scatter" || name == "scan" || name == "exscan";
}
}  // namespace

BenchCollective::BenchCollective(std::string name, int rank, int size, nexar_dtype_t dtype, nexar_op_t op, int root)
    : call_(std::move(name)), name_(fixed_count_name(call_)), reduces_(combines(name_)), rank_(rank), size_(size),
      dtype_(dtype), op_(op), root_(root), es_(nexar::dtype_size(dtype)), call_fn_(pick_call(call_, name_)) {}

BenchCollective::Buffer BenchCollective::page_aligned(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) throw std::runtime_error("out of memory");
  std::memset(p, 0, bytes ? bytes : 1);  // touched before timing
  return Buffer(static_cast<unsigned char*>(p));
}

void BenchCollective::prepare(size_t bytes) {
  const size_t p = static_cast<size_t>(size_);
  const bool root = rank_ == root_;
  const bool family = name_ == "allgather" || name_ == "gather" || name_ == "scatter" || name_ == "reduce_scatter" ||
                      name_ == "alltoall";
  // A size above 0 but below one element per rank times one element per rank (the
  // smallest call that moves data; docs/benchmarks.md, "The smallest size"), as mpi-bench does.
  count_ = name_ == "barrier" ? 0 : family ? std::max<size_t>(bytes ? 1 : 0, bytes / (p * es_)) : bytes / es_;
  bytes_ = family ? count_ * p * es_ : count_ * es_;
  const size_t n = count_, all = n * p;
  send_elems_ = recv_elems_ = 0;
  if (name_ == "allreduce" || name_ == "scan" || name_ == "exscan") send_elems_ = recv_elems_ = n;
  if (name_ == "broadcast") recv_elems_ = n;
  if (name_ == "reduce") send_elems_ = n, recv_elems_ = root ? n : 0;
  if (name_ == "allgather") send_elems_ = n, recv_elems_ = all;
  if (name_ == "gather") send_elems_ = n, recv_elems_ = root ? all : 0;
  if (name_ == "scatter") send_elems_ = root ? all : 0, recv_elems_ = n;
  if (name_ == "reduce_scatter") send_elems_ = all, recv_elems_ = n;
  if (name_ == "alltoall") send_elems_ = recv_elems_ = all;
  if (call_ == "alltoallv_skew") {
    // Every rank sends rank 0 (the hot expert) 4 blocks' worth and the others one: rank 0
    // receives 4x what the others do; each rank sends `bytes` in all.
    count_ = bytes / ((p + 3) * es_);
    bytes_ = count_ * (p + 3) * es_;
    send_elems_ = count_ * (p + 3);
    recv_elems_ = rank_ == 0 ? 4 * count_ * p : count_ * p;
  }
  vcounts_to_.assign(p, count_);  // elements to (or from) each rank, and where they lie
  vcounts_from_.assign(p, count_);
  if (call_ == "alltoallv_skew") vcounts_to_[0] = 4 * count_;
  if (call_ == "alltoallv_skew" && rank_ == 0) vcounts_from_.assign(p, 4 * count_);
  vdispls_to_.assign(p, 0);
  vdispls_from_.assign(p, 0);
  for (size_t j = 1; j < p; ++j) {
    vdispls_to_[j] = vdispls_to_[j - 1] + vcounts_to_[j - 1];
    vdispls_from_[j] = vdispls_from_[j - 1] + vcounts_from_[j - 1];
  }
  send_ = page_aligned(send_elems_ * es_);
  recv_ = page_aligned(recv_elems_ * es_);
  for (size_t i = 0; i < send_elems_; ++i) store(send_.get(), i, value(rank_, i));
  if (name_ == "broadcast" && root)
    for (size_t i = 0; i < n; ++i) store(recv_.get(), i, value(rank_, i));
}

nexar_result_t BenchCollective::run(nexar_comm_t comm) { return call_fn_(*this, comm); }

BenchCollective::CallFn BenchCollective::pick_call(const std::string& call, const std::string& name) {
  using B = BenchCollective;
  using C = nexar_comm_t;
  if (call == "allgatherv")
    return [](B& b, C c) { return nexar_allgatherv(b.sbuf(), b.count_, b.rbuf(), b.vcounts_from_.data(), b.vdispls_from_.data(), b.dtype_, c); };
  if (call == "gatherv")
    return [](B& b, C c) {
      return nexar_gatherv(b.sbuf(), b.count_, b.rbuf(), b.vcounts_from_.data(), b.vdispls_from_.data(), b.dtype_, b.root_, c);
    };
  if (call == "scatterv")
    return [](B& b, C c) {
      return nexar_scatterv(b.sbuf(), b.vcounts_to_.data(), b.vdispls_to_.data(), b.rbuf(), b.count_, b.dtype_, b.root_, c);
    };
  if (call == "alltoallv" || call == "alltoallv_skew")
    return [](B& b, C c) {
      return nexar_alltoallv(b.sbuf(), b.vcounts_to_.data(), b.vdispls_to_.data(), b.rbuf(), b.vcounts_from_.data(),
                             b.vdispls_from_.data(), b.dtype_, c);
    };
  if (call == "reduce_scatter_v")
    return [](B& b, C c) { return nexar_reduce_scatter_v(b.sbuf(), b.rbuf(), b.vcounts_to_.data(), b.dtype_, b.op_, c); };
  if (name == "allreduce") return [](B& b, C c) { return nexar_allreduce(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.op_, c); };
  if (name == "broadcast") return [](B& b, C c) { return nexar_broadcast(b.rbuf(), b.count_, b.dtype_, b.root_, c); };
  if (name == "reduce")
    return [](B& b, C c) { return nexar_reduce(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.op_, b.root_, c); };
  if (name == "allgather") return [](B& b, C c) { return nexar_allgather(b.sbuf(), b.rbuf(), b.count_, b.dtype_, c); };
  if (name == "reduce_scatter")
    return [](B& b, C c) { return nexar_reduce_scatter(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.op_, c); };
  if (name == "gather") return [](B& b, C c) { return nexar_gather(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.root_, c); };
  if (name == "scatter") return [](B& b, C c) { return nexar_scatter(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.root_, c); };
  if (name == "alltoall") return [](B& b, C c) { return nexar_alltoall(b.sbuf(), b.rbuf(), b.count_, b.dtype_, c); };
  if (name == "scan") return [](B& b, C c) { return nexar_scan(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.op_, c); };
  if (name == "exscan") return [](B& b, C c) { return nexar_exscan(b.sbuf(), b.rbuf(), b.count_, b.dtype_, b.op_, c); };
  return [](B&, C c) { return nexar_barrier(c); };
}

// Small integers (exact in every type, sums over many ranks included); +-1 for products.
double BenchCollective::value(int rank, size_t i) const {
  const size_t r = static_cast<size_t>(rank);
  if (!reduces()) return is_unsigned(dtype_) ? static_cast<double>((r * 131 + i * 7) % 251)
                                             : static_cast<double>((r * 131 + i * 7) % 251) - 125.0;
  if (op_ == NEXAR_PROD) return is_unsigned(dtype_) || (r + i) % 3 ? 1.0 : -1.0;
  const double v = static_cast<double>((r * 3 + i) % 7);
  return is_unsigned(dtype_) ? v : v - 3.0;
}

double BenchCollective::expected(size_t i) const {
  const size_t n = count_;
  // The values are small integers: their int64 bits are the type's, sign-extended.
  auto bitwise = [&](int64_t a, int64_t b) { return op_ == NEXAR_BAND ? a & b : op_ == NEXAR_BOR ? a | b : a ^ b; };
  auto fold = [&](int lo, int hi, size_t idx) {
    double acc = value(lo, idx);
    for (int q = lo + 1; q < hi; ++q) {
      const double x = value(q, idx);
      if (op_ == NEXAR_PROD) acc *= x;
      else if (op_ == NEXAR_MIN) acc = std::min(acc, x);
      else if (op_ == NEXAR_MAX) acc = std::max(acc, x);
      else if (nexar::op_is_bitwise(op_)) acc = static_cast<double>(bitwise(static_cast<int64_t>(acc), static_cast<int64_t>(x)));
      else acc += x;
    }
    if (op_ == NEXAR_AVG) acc = is_float(dtype_) ? acc / (hi - lo) : std::trunc(acc / (hi - lo));
    return acc;
  };
  if (name_ == "allreduce" || name_ == "reduce") return fold(0, size_, i);
  if (name_ == "scan") return fold(0, rank_ + 1, i);
  if (name_ == "exscan") {
    if (rank_ > 0) return fold(0, rank_, i);
    unsigned char id[8];
    nexar::fill_identity(id, 1, dtype_, op_);
    return load(id, 0);
  }
  if (name_ == "reduce_scatter") return fold(0, size_, static_cast<size_t>(rank_) * n + i);
  if (name_ == "broadcast") return value(root_, i);
  if (name_ == "scatter") return value(root_, static_cast<size_t>(rank_) * n + i);
  if (name_ == "allgather" || name_ == "gather") return value(static_cast<int>(i / n), i % n);
  if (call_ == "alltoallv_skew") {  // block q of vcounts_from_[q] elements from rank q
    const size_t b = vcounts_from_[0], q = i / b;
    return value(static_cast<int>(q), (rank_ == 0 ? 0 : 4 * n + (static_cast<size_t>(rank_) - 1) * n) + i % b);
  }
  if (name_ == "alltoall") return value(static_cast<int>(i / n), static_cast<size_t>(rank_) * n + i % n);
  return 0;
}

void BenchCollective::store(unsigned char* p, size_t i, double v) const {
  unsigned char* e = p + i * es_;
  auto put = [&](auto x) { std::memcpy(e, &x, sizeof x); };
  switch (dtype_) {
    case NEXAR_INT8: put(static_cast<int8_t>(v)); break;
    case NEXAR_UINT8: put(static_cast<uint8_t>(v)); break;
    case NEXAR_INT32: put(static_cast<int32_t>(v)); break;
    case NEXAR_UINT32: put(static_cast<uint32_t>(v)); break;
    case NEXAR_INT64: put(static_cast<int64_t>(v)); break;
    case NEXAR_UINT64: put(static_cast<uint64_t>(v)); break;
    case NEXAR_FLOAT16: put(nexar::float_to_half(static_cast<float>(v))); break;
    case NEXAR_BFLOAT16: put(nexar::float_to_bf16(static_cast<float>(v))); break;
    case NEXAR_FLOAT32: put(static_cast<float>(v)); break;
    case NEXAR_FLOAT64: put(v); break;
  }
}

double BenchCollective::load(const unsigned char* p, size_t i) const {
  const unsigned char* e = p + i * es_;
  auto get = [&](auto x) { std::memcpy(&x, e, sizeof x); return static_cast<double>(x); };
  switch (dtype_) {
    case NEXAR_INT8: return get(int8_t{});
    case NEXAR_UINT8: return get(uint8_t{});
    case NEXAR_INT32: return get(int32_t{});
    case NEXAR_UINT32: return get(uint32_t{});
    case NEXAR_INT64: return get(int64_t{});
    case NEXAR_UINT64: return get(uint64_t{});
    case NEXAR_FLOAT16: { uint16_t h; std::memcpy(&h, e, 2); return nexar::half_to_float(h); }
    case NEXAR_BFLOAT16: { uint16_t h; std::memcpy(&h, e, 2); return nexar::bf16_to_float(h); }
    case NEXAR_FLOAT32: return get(float{});
    case NEXAR_FLOAT64: return get(double{});
  }
  return 0;
}

bool BenchCollective::check(std::string* why) const {
  if (recv_elems_ == 0) return true;
  // Float AVG divides once; allow for that rounding. Everything else is exact.
  const double tol = op_ == NEXAR_AVG && is_float(dtype_) && reduces() ? (es_ == 2 ? 1e-2 : 1e-6) : 0;
  unsigned char want_elem[8];
  for (size_t i = 0; i < recv_elems_; ++i) {
    store(want_elem, 0, expected(i));  // the expectation in the type
    const double want = load(want_elem, 0), got = load(recv_.get(), i);
    if (got == want || std::fabs(got - want) <= tol * std::fabs(want)) continue;
    if (why) *why = call_ + ": element " + std::to_string(i) + " is " + std::to_string(got) + ", want " +
                    std::to_string(want);
    return false;
  }
  return true;
}

}  // namespace nexar_bench
