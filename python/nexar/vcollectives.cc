// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar.Comm's collectives with a count per rank (mpi4py's Allgatherv, Gatherv, Scatterv,
// Alltoallv, Reduce_scatter, and their non-blocking forms). A buffer with counts is given
// as mpi4py takes it: [buf, counts], [buf, (counts, displs)] or [buf, counts, displs], in
// elements of buf's type; without displacements the blocks lie end to end.
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "call.h"
#include "collectives.h"
#include "comm.h"

namespace nexar_py {
namespace {

[[noreturn]] void type_error(const std::string& text) {
  PyErr_SetString(PyExc_TypeError, text.c_str());
  throw py::error_already_set();
}

// A sequence of `size` element counts or displacements, each >= 0.
std::vector<size_t> sizes_of(const py::handle& seq, size_t size, const std::string& where) {
  if (!py::isinstance<py::sequence>(seq) || py::isinstance<py::str>(seq))
    type_error(where + " is a " + std::string(Py_TYPE(seq.ptr())->tp_name) + ", not a sequence of integers");
  const auto s = py::reinterpret_borrow<py::sequence>(seq);
  if (s.size() != size)
    value_error(where + " has " + std::to_string(s.size()) + " entries; the communicator has " + std::to_string(size) +
                " ranks");
  std::vector<size_t> out;
  for (size_t i = 0; i < size; ++i) {
    const long long v = s[i].cast<long long>();
    if (v < 0) value_error(where + "[" + std::to_string(i) + "] is " + std::to_string(v) + " (negative)");
    out.push_back(static_cast<size_t>(v));
  }
  return out;
}

struct Blocks {
  View view;
  std::vector<size_t> counts, displs;
};

// The [buf, counts(, displs)] argument `what` of `call`; every block must lie in buf.
Blocks blocks_of(const py::handle& arg, Access access, const char* call, const char* what, size_t size) {
  const std::string where = std::string(call) + ": " + what;
  const bool seq = py::isinstance<py::list>(arg) || py::isinstance<py::tuple>(arg);
  const size_t n = seq ? py::len(arg) : 0;
  if (n != 2 && n != 3)
    type_error(where + " must be [buffer, counts] or [buffer, counts, displs] (a list or tuple), not a " +
               std::string(Py_TYPE(arg.ptr())->tp_name) + (seq ? " of " + std::to_string(n) : std::string()));
  const auto parts = py::reinterpret_borrow<py::sequence>(arg);
  Blocks b;
  b.view = view_of(parts[0], access, call, what);
  py::object counts = parts[1], displs = n == 3 ? py::object(parts[2]) : py::object(py::none());
  if (n == 2 && py::isinstance<py::tuple>(counts) && py::len(counts) == 2 &&
      py::isinstance<py::sequence>(py::reinterpret_borrow<py::tuple>(counts)[0])) {  // [buf, (counts, displs)]
    const auto pair = py::reinterpret_borrow<py::tuple>(counts);
    counts = pair[0];
    displs = pair[1];
  }
  b.counts = sizes_of(counts, size, where + "'s counts");
  if (displs.is_none()) {
    size_t at = 0;
    for (size_t c : b.counts) b.displs.push_back(at), at += c;
  } else {
    b.displs = sizes_of(displs, size, where + "'s displs");
  }
  for (size_t i = 0; i < size; ++i)
    if (b.displs[i] + b.counts[i] > b.view.count)
      value_error(where + ": block " + std::to_string(i) + " (displacement " + std::to_string(b.displs[i]) + ", " +
                  std::to_string(b.counts[i]) + " elements) ends past its " + std::to_string(b.view.count) +
                  " elements");
  return b;
}

size_t size_of(const Call& c) { return static_cast<size_t>(comm_size(c.comm)); }

Call allgatherv(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf) {
  Call c = call_on(comm, "Allgatherv");
  Blocks r = blocks_of(recvbuf, Access::WRITE, c.name, "recvbuf", size_of(c));
  const nexar_dtype_t dt = r.view.dtype;
  size_t sendcount = 0;
  const void* send = nullptr;
  if (!in_place(sendbuf)) {  // in place: this rank's block is in recvbuf already
    View s = view_of(sendbuf, Access::READ, c.name, "sendbuf");
    require_same_type(s, "sendbuf", r.view, "recvbuf", c.name);
    sendcount = s.count;
    send = c.hold(std::move(s));
  }
  void* recv = c.hold(std::move(r.view));
  set_calls(c, nexar_allgatherv, nexar_iallgatherv, send ? send : recv, sendcount, recv, c.hold(std::move(r.counts)),
            c.hold(std::move(r.displs)), dt);
  return c;
}

// Gatherv and Scatterv: each rank's own block (`mine`: Gatherv's sendbuf, Scatterv's
// recvbuf; IN_PLACE at the root: its block stays in the root's buffer) and the root's
// blocks with their counts (`all`, absent elsewhere).
struct RootedV {
  void* mine;  // the root in place: `all`
  size_t count;
  void* all;   // nullptr away from the root, with counts and displs
  const size_t* counts;
  const size_t* displs;
  nexar_dtype_t dtype;
};
RootedV rooted_v(Call& c, int root, const py::object& mine_arg, const py::object& all_arg, bool mine_sends) {
  check_root(c.comm, root, c.name);
  const bool is_root = comm_rank(c.comm) == root;
  const char* mine_what = mine_sends ? "sendbuf" : "recvbuf";
  const char* all_what = mine_sends ? "recvbuf" : "sendbuf";
  std::optional<View> mine;
  if (!(is_root && in_place(mine_arg)))
    mine = view_of(mine_arg, mine_sends ? Access::READ : Access::WRITE, c.name, mine_what);
  RootedV r{nullptr, mine ? mine->count : 0, nullptr, nullptr, nullptr, mine ? mine->dtype : NEXAR_UINT8};
  if (is_root) {
    Blocks all = blocks_of(all_arg, mine_sends ? Access::WRITE : Access::READ, c.name, all_what, size_of(c));
    if (mine)
      require_same_type(mine_sends ? *mine : all.view, "sendbuf", mine_sends ? all.view : *mine, "recvbuf", c.name);
    r.dtype = all.view.dtype;
    r.all = c.hold(std::move(all.view));
    r.counts = c.hold(std::move(all.counts));
    r.displs = c.hold(std::move(all.displs));
  }
  r.mine = mine ? c.hold(std::move(*mine)) : r.all;
  return r;
}

Call gatherv(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, int root) {
  Call c = call_on(comm, "Gatherv");
  const RootedV r = rooted_v(c, root, sendbuf, recvbuf, true);
  set_calls(c, nexar_gatherv, nexar_igatherv, static_cast<const void*>(r.mine), r.count, r.all, r.counts, r.displs,
            r.dtype, root);
  return c;
}

Call scatterv(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf, int root) {
  Call c = call_on(comm, "Scatterv");
  const RootedV r = rooted_v(c, root, recvbuf, sendbuf, false);
  set_calls(c, nexar_scatterv, nexar_iscatterv, static_cast<const void*>(r.all), r.counts, r.displs, r.mine, r.count,
            r.dtype, root);
  return c;
}

Call alltoallv(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf) {
  Call c = call_on(comm, "Alltoallv");
  const size_t n = size_of(c);
  Blocks r = blocks_of(recvbuf, Access::WRITE, c.name, "recvbuf", n);
  const nexar_dtype_t dt = r.view.dtype;
  void* recv = c.hold(std::move(r.view));
  const size_t* rcounts = c.hold(std::move(r.counts));
  const size_t* rdispls = c.hold(std::move(r.displs));
  const void* send = recv;  // in place: the send blocks are recvbuf's, as the receive lays them out
  const size_t *scounts = rcounts, *sdispls = rdispls;
  if (!in_place(sendbuf)) {
    Blocks s = blocks_of(sendbuf, Access::READ, c.name, "sendbuf", n);
    require_same_type(s.view, "sendbuf", c.buffers.front(), "recvbuf", c.name);
    send = c.hold(std::move(s.view));
    scounts = c.hold(std::move(s.counts));
    sdispls = c.hold(std::move(s.displs));
  }
  set_calls(c, nexar_alltoallv, nexar_ialltoallv, send, scounts, sdispls, recv, rcounts, rdispls, dt);
  return c;
}

Call reduce_scatter(const Comm& comm, const py::object& sendbuf, const py::object& recvbuf,
                    const py::object& recvcounts, nexar_op_t op) {
  Call c = call_on(comm, "Reduce_scatter");
  const size_t n = size_of(c);
  std::vector<size_t> counts = sizes_of(recvcounts, n, "Reduce_scatter: recvcounts");
  size_t total = 0;
  for (size_t k : counts) total += k;
  const size_t mine = counts[static_cast<size_t>(comm_rank(c.comm))];
  View r = view_of(recvbuf, Access::WRITE, c.name, "recvbuf");
  require_typed(r, c.name, "recvbuf");
  const bool inplace = in_place(sendbuf);
  const size_t want = inplace ? total : mine;  // in place: recvbuf holds every block, gets its own at the start
  if (r.count != want)
    value_error("Reduce_scatter: recvbuf has " + std::to_string(r.count) + " elements; it needs " +
                std::to_string(want) + (inplace ? " (IN_PLACE: the sum of recvcounts)" : " (recvcounts[rank])"));
  const nexar_dtype_t dt = r.dtype;
  void* recv = c.hold(std::move(r));
  const void* send = recv;
  if (!inplace) {
    View s = view_of(sendbuf, Access::READ, c.name, "sendbuf");
    require_same_type(s, "sendbuf", c.buffers.front(), "recvbuf", c.name);
    if (s.count != total)
      value_error("Reduce_scatter: sendbuf has " + std::to_string(s.count) + " elements; it needs " +
                  std::to_string(total) + " (the sum of recvcounts)");
    send = c.hold(std::move(s));
  }
  set_calls(c, nexar_reduce_scatter_v, nexar_ireduce_scatter_v, send, recv, c.hold(std::move(counts)), dt, op);
  return c;
}

}  // namespace

void define_vcollectives(py::class_<Comm>& cls) {
  def_both(cls, "Allgatherv", &allgatherv, py::arg("sendbuf"), py::arg("recvbuf"));
  def_both(cls, "Gatherv", &gatherv, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0);
  def_both(cls, "Scatterv", &scatterv, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0);
  def_both(cls, "Alltoallv", &alltoallv, py::arg("sendbuf"), py::arg("recvbuf"));
  def_both(cls, "Reduce_scatter", &reduce_scatter, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("recvcounts"),
           py::arg("op") = NEXAR_SUM);
}

}  // namespace nexar_py
