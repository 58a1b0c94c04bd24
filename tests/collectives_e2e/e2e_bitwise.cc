// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The bitwise ops (NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR): exact on every integer dtype for
// every collective that reduces (reduce at every root, reduce_scatter_v included), and
// refused on every float dtype by every reducing entry, blocking and non-blocking, on
// every rank alike, naming the op and the dtype, with nothing written.
#include <cstring>
#include <string>
#include <vector>

#include "e2e_probe.h"

namespace e2e {
namespace {

const nexar_dtype_t kIntDtypes[] = {NEXAR_INT8, NEXAR_UINT8, NEXAR_INT32, NEXAR_UINT32, NEXAR_INT64, NEXAR_UINT64};
const nexar_dtype_t kFloatDtypes[] = {NEXAR_FLOAT16, NEXAR_BFLOAT16, NEXAR_FLOAT32, NEXAR_FLOAT64};

// reduce_scatter_v with rank k receiving k % 3 + 1 elements (odd and even, never equal
// for three ranks or more), checked against the reference.
void reduce_scatter_v_exact(nexar_dtype_t d, nexar_op_t op, uint32_t seed, bool nonblocking) {
  const size_t p = static_cast<size_t>(g_size), r = static_cast<size_t>(g_rank), es = dtype_bytes(d);
  std::vector<size_t> counts(p);
  size_t total = 0, first = 0;
  for (size_t k = 0; k < p; ++k) {
    counts[k] = k % 3 + 1;
    if (k < r) first += counts[k];
    total += counts[k];
  }
  const Bytes in = make_input(g_rank, 0, total, d, op, DataKind::EXACT, seed);
  Bytes out(counts[r] * es, 0xCD);
  if (nonblocking) {
    nexar_request_t req = nullptr;
    E2E_OK(nexar_ireduce_scatter_v(in.data(), out.data(), counts.data(), d, op, g_world, &req));
    E2E_OK(nexar_wait(req));
  } else {
    E2E_OK(nexar_reduce_scatter_v(in.data(), out.data(), counts.data(), d, op, g_world));
  }
  const Bytes want = reference(0, g_size, first, counts[r], d, op, DataKind::EXACT, seed);
  const std::string err = first_difference(out.data(), want.data(), want.size(), es);
  E2E_CHECK(err.empty(), std::string("reduce_scatter_v ") + dtype_str(d) + "/" + op_str(op) + ": " + err);
}

// Every reducing kind on every integer dtype x op; reduce at every root and a longer
// vector with the dtype rotating.
void exact_on_integers() {
  const Kind kinds[] = {Kind::ALLREDUCE, Kind::REDUCE, Kind::REDUCE_SCATTER, Kind::SCAN, Kind::EXSCAN, Kind::BUCKETED};
  uint32_t seed = 7000;
  auto run = [&](Kind k, size_t count, nexar_dtype_t d, nexar_op_t op, int root) {
    Case c;
    c.kind = k;
    c.count = count;
    c.dtype = d;
    c.op = op;
    c.root = root;
    c.in_place = k != Kind::BUCKETED && (++seed % 2) == 0;
    c.seed = seed;
    run_checked(c, seed % 3 == 0);
  };
  for (nexar_dtype_t d : kIntDtypes)
    for (nexar_op_t op : kBitwiseOps) {
      for (Kind k : kinds)
        for (size_t count : {size_t{1}, size_t{13}}) run(k, count, d, op, static_cast<int>(seed % static_cast<uint32_t>(g_size)));
      ++seed;
      reduce_scatter_v_exact(d, op, seed, seed % 2 == 0);
    }
  for (nexar_op_t op : kBitwiseOps) {
    for (int root = 0; root < g_size; ++root) run(Kind::REDUCE, 13, kIntDtypes[(seed + static_cast<uint32_t>(root)) % 6], op, root);
    run(Kind::ALLREDUCE, 1001, kIntDtypes[seed % 6], op, 0);  // the kernels' vector loop and its tail
  }
}

// r is NEXAR_ERR_INVALID_ARGUMENT and the message names the op and the dtype.
void expect_refused(nexar_result_t r, nexar_op_t op, nexar_dtype_t d, const char* call) {
  const std::string msg = nexar_comm_last_error(g_world);
  const std::string what = std::string(call) + "(" + dtype_str(d) + ", " + op_str(op) + ")";
  E2E_CHECK(r == NEXAR_ERR_INVALID_ARGUMENT, what + " returned " + nexar_result_string(r));
  E2E_CHECK(msg.find(op_str(op)) != std::string::npos && msg.find(dtype_str(d)) != std::string::npos,
            what + ": message '" + msg + "' does not name the op and the dtype");
}

void refused_on_floats() {
  const size_t p = static_cast<size_t>(g_size), n = 5;
  std::vector<unsigned char> in(n * p * 8, 0x11), out(n * p * 8, 0xCD);
  const std::vector<unsigned char> untouched = out;
  std::vector<size_t> counts(p, n);
  void* bufs[2] = {out.data(), out.data() + 8 * n};
  size_t bucket_counts[2] = {n, n};
  const void* s = in.data();
  void* o = out.data();
  for (nexar_dtype_t d : kFloatDtypes)
    for (nexar_op_t op : kBitwiseOps) {
      nexar_request_t req = nullptr;
#define REFUSED(call) expect_refused((call), op, d, #call)
      REFUSED(nexar_allreduce(s, o, n, d, op, g_world));
      REFUSED(nexar_allreduce(o, o, n, d, op, g_world));
      REFUSED(nexar_reduce(s, o, n, d, op, g_size - 1, g_world));
      REFUSED(nexar_reduce_scatter(s, o, n, d, op, g_world));
      REFUSED(nexar_reduce_scatter_v(s, o, counts.data(), d, op, g_world));
      REFUSED(nexar_scan(s, o, n, d, op, g_world));
      REFUSED(nexar_exscan(s, o, n, d, op, g_world));
      REFUSED(nexar_allreduce_bucketed(bufs, bucket_counts, 2, d, op, g_world));
      REFUSED(nexar_iallreduce(s, o, n, d, op, g_world, &req));
      REFUSED(nexar_ireduce(s, o, n, d, op, 0, g_world, &req));
      REFUSED(nexar_ireduce_scatter(s, o, n, d, op, g_world, &req));
      REFUSED(nexar_ireduce_scatter_v(s, o, counts.data(), d, op, g_world, &req));
      REFUSED(nexar_iscan(s, o, n, d, op, g_world, &req));
      REFUSED(nexar_iexscan(s, o, n, d, op, g_world, &req));
      REFUSED(nexar_iallreduce_bucketed(bufs, bucket_counts, 2, d, op, g_world, &req));
#undef REFUSED
      E2E_CHECK(req == nullptr, std::string("a refused ") + op_str(op) + " on " + dtype_str(d) + " left a request");
      E2E_CHECK(out == untouched, std::string("a refused ") + op_str(op) + " on " + dtype_str(d) + " wrote its output");
      // Every rank refused alike: the communicator still matches and reduces.
      Case c;
      c.kind = Kind::ALLREDUCE;
      c.count = 7;
      c.dtype = NEXAR_UINT32;
      c.op = op;
      c.seed = 7900 + static_cast<uint32_t>(d);
      run_checked(c, false);
    }
}

}  // namespace

void scenario_bitwise() {
  exact_on_integers();
  refused_on_floats();
}

}  // namespace e2e
