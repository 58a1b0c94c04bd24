// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar.Comm's collectives with one count for every rank (mpi4py's Bcast, Allreduce...,
// and their non-blocking forms Ibcast, Iallreduce...).
#include "collectives.h"

#include <string>

#include "args.h"
#include "call.h"
#include "comm.h"

namespace nexar_py {
namespace {

// The send and receive addresses of a Pair once c holds its buffers.
struct Held {
  const void* send;
  void* recv;
  size_t count;  // recvbuf's elements
  nexar_dtype_t dtype;
};
Held hold_pair(Call& c, Pair p) {
  Held h{nullptr, nullptr, p.recv.count, p.recv.dtype};
  h.recv = c.hold(std::move(p.recv));
  h.send = p.in_place ? h.recv : c.hold(std::move(p.send));
  return h;
}

Call barrier(const Comm& comm) {
  Call c = call_on(comm, "Barrier");
  set_calls(c, nexar_barrier, nexar_ibarrier);
  return c;
}

Call bcast(const Comm& comm, const py::object& buf, int root) {
  Call c = call_on(comm, "Bcast");
  check_root(c.comm, root, c.name);
  View v = view_of(buf, Access::WRITE, c.name, "buf");
  const size_t n = v.count;
  const nexar_dtype_t dt = v.dtype;
  set_calls(c, nexar_broadcast, nexar_ibroadcast, c.hold(std::move(v)), n, dt, root);
  return c;
}

// Allreduce, Scan and Exscan: recvbuf as large as sendbuf (or IN_PLACE), one op.
using SameFn = nexar_result_t (*)(const void*, void*, size_t, nexar_dtype_t, nexar_op_t, nexar_comm_t);
using ISameFn = nexar_result_t (*)(const void*, void*, size_t, nexar_dtype_t, nexar_op_t, nexar_comm_t,
                                   nexar_request_t*);
template <SameFn fn, ISameFn ifn, const char* name>
Call same_extent(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op) {
  Call c = call_on(comm, name);
  const Held h = hold_pair(c, pair_of(sendbuf, recvbuf, name, true, 1));
  set_calls(c, fn, ifn, h.send, h.recv, h.count, h.dtype, op);
  return c;
}
constexpr char kAllreduce[] = "Allreduce";
constexpr char kScan[] = "Scan";
constexpr char kExscan[] = "Exscan";

Call reduce(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op, int root) {
  Call c = call_on(comm, "Reduce");
  check_root(c.comm, root, c.name);
  if (comm_rank(c.comm) == root) {
    const Held h = hold_pair(c, pair_of(sendbuf, recvbuf, c.name, true, 1));
    set_calls(c, nexar_reduce, nexar_ireduce, h.send, h.recv, h.count, h.dtype, op, root);
    return c;
  }
  View s = view_of(sendbuf, Access::READ, c.name, "sendbuf");  // recvbuf: the root's only
  require_typed(s, c.name, "sendbuf");
  const size_t n = s.count;
  const nexar_dtype_t dt = s.dtype;
  set_calls(c, nexar_reduce, nexar_ireduce, static_cast<const void*>(c.hold(std::move(s))), static_cast<void*>(nullptr),
            n, dt, op, root);
  return c;
}

Call reduce_scatter_block(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op) {
  Call c = call_on(comm, "Reduce_scatter_block");
  const long n = comm_size(c.comm);
  Pair p = pair_of(sendbuf, recvbuf, c.name, true, -n);
  size_t count = p.recv.count;
  if (p.in_place) {  // recvbuf holds the n blocks; the result is its first
    if (count % static_cast<size_t>(n) != 0)
      value_error("Reduce_scatter_block: recvbuf's " + std::to_string(count) + " elements are not " +
                  std::to_string(n) + " equal blocks (IN_PLACE: recvbuf holds every rank's block)");
    count /= static_cast<size_t>(n);
  }
  const Held h = hold_pair(c, std::move(p));
  set_calls(c, nexar_reduce_scatter, nexar_ireduce_scatter, h.send, h.recv, count, h.dtype, op);
  return c;
}

Call allgather(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf) {
  Call c = call_on(comm, "Allgather");
  const size_t n = static_cast<size_t>(comm_size(c.comm));
  View r = view_of(recvbuf, Access::WRITE, c.name, "recvbuf");
  if (in_place(sendbuf)) {
    if (r.count % n != 0)
      value_error("Allgather: recvbuf's " + std::to_string(r.count) + " elements are not " + std::to_string(n) +
                  " equal blocks");
    const size_t count = r.count / n;
    const nexar_dtype_t dt = r.dtype;
    void* p = c.hold(std::move(r));
    set_calls(c, nexar_allgather, nexar_iallgather, static_cast<const void*>(p), p, count, dt);
    return c;
  }
  View s = view_of(sendbuf, Access::READ, c.name, "sendbuf");
  require_same_type(s, "sendbuf", r, "recvbuf", c.name);
  require_ratio(s, r, static_cast<long>(n), c.name);
  const size_t count = s.count;
  const nexar_dtype_t dt = s.dtype;
  set_calls(c, nexar_allgather, nexar_iallgather, static_cast<const void*>(c.hold(std::move(s))),
            c.hold(std::move(r)), count, dt);
  return c;
}

Call alltoall(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf) {
  Call c = call_on(comm, "Alltoall");
  const size_t n = static_cast<size_t>(comm_size(c.comm));
  Pair p = pair_of(sendbuf, recvbuf, c.name, false, 1);
  if (p.recv.count % n != 0)
    value_error("Alltoall: recvbuf's " + std::to_string(p.recv.count) + " elements are not " + std::to_string(n) +
                " equal blocks");
  const Held h = hold_pair(c, std::move(p));
  set_calls(c, nexar_alltoall, nexar_ialltoall, h.send, h.recv, h.count / n, h.dtype);
  return c;
}

// Gather and Scatter: each rank's own block (`mine`: Gather's sendbuf, Scatter's recvbuf)
// and the root's n blocks (`all`, absent elsewhere), checked against each other.
struct Rooted {
  void* mine;
  void* all;  // nullptr away from the root
  size_t count;
  nexar_dtype_t dtype;
};
Rooted rooted(Call& c, int root, const py::object& mine_arg, const py::object& all_arg, bool mine_sends) {
  check_root(c.comm, root, c.name);
  const long n = comm_size(c.comm);
  const char* mine_what = mine_sends ? "sendbuf" : "recvbuf";
  const char* all_what = mine_sends ? "recvbuf" : "sendbuf";
  View mine = view_of(mine_arg, mine_sends ? Access::READ : Access::WRITE, c.name, mine_what);
  Rooted r{nullptr, nullptr, mine.count, mine.dtype};
  if (comm_rank(c.comm) == root) {
    View all = view_of(all_arg, mine_sends ? Access::WRITE : Access::READ, c.name, all_what);
    const View& send = mine_sends ? mine : all;
    const View& recv = mine_sends ? all : mine;
    require_same_type(send, "sendbuf", recv, "recvbuf", c.name);
    require_ratio(send, recv, mine_sends ? n : -n, c.name);
    r.all = c.hold(std::move(all));
  }
  r.mine = c.hold(std::move(mine));
  return r;
}

Call gather(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, int root) {
  Call c = call_on(comm, "Gather");
  const Rooted r = rooted(c, root, sendbuf, recvbuf, true);
  set_calls(c, nexar_gather, nexar_igather, static_cast<const void*>(r.mine), r.all, r.count, r.dtype, root);
  return c;
}

Call scatter(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, int root) {
  Call c = call_on(comm, "Scatter");
  const Rooted r = rooted(c, root, recvbuf, sendbuf, false);
  set_calls(c, nexar_scatter, nexar_iscatter, static_cast<const void*>(r.all), r.mine, r.count, r.dtype, root);
  return c;
}

}  // namespace

void define_collectives(py::class_<Comm>& cls) {
  def_both(cls, "Barrier", &barrier);
  def_both(cls, "Bcast", &bcast, py::arg("buf"), py::arg("root") = 0);
  def_both(cls, "Allreduce", &same_extent<nexar_allreduce, nexar_iallreduce, kAllreduce>, py::arg("sendbuf"),
           py::arg("recvbuf"), py::arg("op") = NEXAR_SUM);
  def_both(cls, "Scan", &same_extent<nexar_scan, nexar_iscan, kScan>, py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM);
  def_both(cls, "Exscan", &same_extent<nexar_exscan, nexar_iexscan, kExscan>, py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM);
  def_both(cls, "Reduce", &reduce, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op") = NEXAR_SUM,
           py::arg("root") = 0);
  def_both(cls, "Reduce_scatter_block", &reduce_scatter_block, py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM);
  def_both(cls, "Allgather", &allgather, py::arg("sendbuf"), py::arg("recvbuf"));
  def_both(cls, "Alltoall", &alltoall, py::arg("sendbuf"), py::arg("recvbuf"));
  def_both(cls, "Gather", &gather, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0);
  def_both(cls, "Scatter", &scatter, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0);
}

}  // namespace nexar_py
