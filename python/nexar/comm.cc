// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm.h"

#include <string>

#include "buffers.h"
#include "errors.h"

namespace nexar_py {
namespace {

py::object g_in_place;  // nexar.IN_PLACE (mpi4py's MPI.IN_PLACE)

bool in_place(const py::handle& h) { return h.is(g_in_place); }

// Runs a libnexar call without the GIL (other Python threads run meanwhile), then raises
// nexar.Error if it failed.
template <typename F>
void run(const char* call, nexar_comm_t c, F&& f) {
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = f();
  }
  check(r, call, c);
}

[[noreturn]] void value_error(const std::string& text) {
  PyErr_SetString(PyExc_ValueError, text.c_str());
  throw py::error_already_set();
}

int comm_size(nexar_comm_t c) {
  int n = 0;
  check(nexar_comm_size(c, &n), "Get_size", c);
  return n;
}
int comm_rank(nexar_comm_t c) {
  int r = 0;
  check(nexar_comm_rank(c, &r), "Get_rank", c);
  return r;
}

// recv must hold exactly `factor` times send's elements (or send `factor` times recv's
// when factor is negative, for the collectives whose input is p blocks).
void require_ratio(const View& send, const View& recv, long factor, const char* call) {
  const size_t want_recv = factor > 0 ? send.count * static_cast<size_t>(factor) : 0;
  const bool ok = factor > 0 ? recv.count == want_recv : send.count == recv.count * static_cast<size_t>(-factor);
  if (ok) return;
  value_error(std::string(call) + ": sendbuf has " + std::to_string(send.count) + " elements, recvbuf " +
              std::to_string(recv.count) + "; " +
              (factor == 1   ? std::string("they must be the same")
               : factor > 0 ? "recvbuf needs " + std::to_string(want_recv) + " (" + std::to_string(factor) + " x sendbuf)"
                            : "sendbuf needs " + std::to_string(static_cast<size_t>(-factor)) + " x recvbuf"));
}

// The (sendbuf, recvbuf) pair of a call whose input and output have the same extent, or
// IN_PLACE (then the send pointer is the receive buffer's). `reducing`: both typed.
struct Pair {
  View recv;
  View send;
  const void* send_ptr = nullptr;
};
Pair pair_of(const py::object& sendbuf, const py::object& recvbuf, const char* call, bool reducing, long factor) {
  Pair p;
  p.recv = view_of(recvbuf, Access::WRITE, call, "recvbuf");
  if (reducing) require_typed(p.recv, call, "recvbuf");
  if (in_place(sendbuf)) {
    p.send_ptr = p.recv.data;
    return p;
  }
  p.send = view_of(sendbuf, Access::READ, call, "sendbuf");
  require_same_type(p.send, "sendbuf", p.recv, "recvbuf", call);
  require_ratio(p.send, p.recv, factor, call);
  p.send_ptr = p.send.data;
  return p;
}

void check_root(nexar_comm_t c, int root, const char* call) {
  const int n = comm_size(c);
  if (root < 0 || root >= n)
    value_error(std::string(call) + ": root " + std::to_string(root) + " is not a rank of this communicator (0.." +
                std::to_string(n - 1) + ")");
}

// Allreduce, Scan and Exscan: recvbuf as large as sendbuf (or IN_PLACE), one op.
using SameExtentFn = nexar_result_t (*)(const void*, void*, size_t, nexar_dtype_t, nexar_op_t, nexar_comm_t);
template <SameExtentFn fn>
auto same_extent_reduction(const char* call) {
  return [call](const Comm& c, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op) {
    nexar_comm_t h = c.handle(call);
    Pair p = pair_of(sendbuf, recvbuf, call, true, 1);
    run(call, h, [&] { return fn(p.send_ptr, p.recv.data, p.recv.count, p.recv.dtype, op, h); });
  };
}

}  // namespace

nexar_comm_t Comm::handle(const char* call) const {
  if (!h_) {
    PyErr_SetString(PyExc_ValueError, (std::string(call) + ": the communicator was freed (Free)").c_str());
    throw py::error_already_set();
  }
  return h_;
}

void Comm::free() {
  nexar_comm_t c = handle("Free");
  h_ = nullptr;
  run("Free", nullptr, [&] { return nexar_comm_destroy(c); });
}

void define_comm(py::module_& m) {
  g_in_place = py::module_::import("builtins").attr("object")();
  m.attr("IN_PLACE") = g_in_place;
  py::enum_<nexar_op_t>(m, "Op")
      .value("SUM", NEXAR_SUM)
      .value("PROD", NEXAR_PROD)
      .value("MIN", NEXAR_MIN)
      .value("MAX", NEXAR_MAX)
      .value("AVG", NEXAR_AVG)
      .value("BAND", NEXAR_BAND)
      .value("BOR", NEXAR_BOR)
      .value("BXOR", NEXAR_BXOR)
      .export_values();
  m.attr("ANY_SOURCE") = NEXAR_ANY_SOURCE;
  m.attr("ANY_TAG") = NEXAR_ANY_TAG;
  m.attr("UNDEFINED") = NEXAR_UNDEFINED;

  py::class_<Comm> cls(m, "Comm");
  cls.def("Get_rank", [](const Comm& c) { return comm_rank(c.handle("Get_rank")); })
      .def("Get_size", [](const Comm& c) { return comm_size(c.handle("Get_size")); })
      .def_property_readonly("rank", [](const Comm& c) { return comm_rank(c.handle("rank")); })
      .def_property_readonly("size", [](const Comm& c) { return comm_size(c.handle("size")); })
      .def_property_readonly("freed", &Comm::freed)
      .def_property_readonly("handle", &Comm::address, "the nexar_comm_t, for ctypes calls into libnexar")
      .def("Free", &Comm::free)
      .def("Abort", [](const Comm& c) { check(nexar_comm_abort(c.handle("Abort")), "Abort", c.handle("Abort")); })
      .def("Set_timeout",
           [](const Comm& c, double s) { check(nexar_comm_set_timeout(c.handle("Set_timeout"), s), "Set_timeout",
                                               c.handle("Set_timeout")); },
           py::arg("seconds"))
      .def("Barrier", [](const Comm& c) {
        nexar_comm_t h = c.handle("Barrier");
        run("Barrier", h, [&] { return nexar_barrier(h); });
      });

  cls.def(
         "Bcast",
         [](const Comm& c, const py::object& buf, int root) {
           nexar_comm_t h = c.handle("Bcast");
           check_root(h, root, "Bcast");
           View v = view_of(buf, Access::WRITE, "Bcast", "buf");
           run("Bcast", h, [&] { return nexar_broadcast(v.data, v.count, v.dtype, root, h); });
         },
         py::arg("buf"), py::arg("root") = 0)
      .def("Allreduce", same_extent_reduction<nexar_allreduce>("Allreduce"), py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM)
      .def(
          "Reduce",
          [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op, int root) {
            nexar_comm_t h = c.handle("Reduce");
            check_root(h, root, "Reduce");
            if (comm_rank(h) == root) {
              Pair p = pair_of(sendbuf, recvbuf, "Reduce", true, 1);
              run("Reduce", h,
                  [&] { return nexar_reduce(p.send_ptr, p.recv.data, p.recv.count, p.recv.dtype, op, root, h); });
              return;
            }
            View s = view_of(sendbuf, Access::READ, "Reduce", "sendbuf");  // recvbuf: the root's only
            require_typed(s, "Reduce", "sendbuf");
            run("Reduce", h, [&] { return nexar_reduce(s.data, nullptr, s.count, s.dtype, op, root, h); });
          },
          py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op") = NEXAR_SUM, py::arg("root") = 0)
      .def("Scan", same_extent_reduction<nexar_scan>("Scan"), py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM)
      .def("Exscan", same_extent_reduction<nexar_exscan>("Exscan"), py::arg("sendbuf"), py::arg("recvbuf"),
           py::arg("op") = NEXAR_SUM)
      .def(
          "Reduce_scatter_block",
          [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf, nexar_op_t op) {
            nexar_comm_t h = c.handle("Reduce_scatter_block");
            const long n = comm_size(h);
            Pair p = pair_of(sendbuf, recvbuf, "Reduce_scatter_block", true, -n);
            run("Reduce_scatter_block", h,
                [&] { return nexar_reduce_scatter(p.send_ptr, p.recv.data, p.recv.count, p.recv.dtype, op, h); });
          },
          py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op") = NEXAR_SUM);

  cls.def(
         "Allgather",
         [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf) {
           nexar_comm_t h = c.handle("Allgather");
           const long n = comm_size(h);
           View r = view_of(recvbuf, Access::WRITE, "Allgather", "recvbuf");
           if (in_place(sendbuf)) {
             if (r.count % static_cast<size_t>(n) != 0)
               value_error("Allgather: recvbuf's " + std::to_string(r.count) + " elements are not " + std::to_string(n) +
                           " equal blocks");
             run("Allgather", h, [&] { return nexar_allgather(r.data, r.data, r.count / n, r.dtype, h); });
             return;
           }
           View s = view_of(sendbuf, Access::READ, "Allgather", "sendbuf");
           require_same_type(s, "sendbuf", r, "recvbuf", "Allgather");
           require_ratio(s, r, n, "Allgather");
           run("Allgather", h, [&] { return nexar_allgather(s.data, r.data, s.count, s.dtype, h); });
         },
         py::arg("sendbuf"), py::arg("recvbuf"))
      .def(
          "Alltoall",
          [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf) {
            nexar_comm_t h = c.handle("Alltoall");
            const size_t n = static_cast<size_t>(comm_size(h));
            Pair p = pair_of(sendbuf, recvbuf, "Alltoall", false, 1);
            if (p.recv.count % n != 0)
              value_error("Alltoall: recvbuf's " + std::to_string(p.recv.count) + " elements are not " +
                          std::to_string(n) + " equal blocks");
            run("Alltoall", h,
                [&] { return nexar_alltoall(p.send_ptr, p.recv.data, p.recv.count / n, p.recv.dtype, h); });
          },
          py::arg("sendbuf"), py::arg("recvbuf"))
      .def(
          "Gather",
          [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf, int root) {
            nexar_comm_t h = c.handle("Gather");
            check_root(h, root, "Gather");
            const long n = comm_size(h);
            View s = view_of(sendbuf, Access::READ, "Gather", "sendbuf");
            if (comm_rank(h) != root) {  // recvbuf: the root's only
              run("Gather", h, [&] { return nexar_gather(s.data, nullptr, s.count, s.dtype, root, h); });
              return;
            }
            View r = view_of(recvbuf, Access::WRITE, "Gather", "recvbuf");
            require_same_type(s, "sendbuf", r, "recvbuf", "Gather");
            require_ratio(s, r, n, "Gather");
            run("Gather", h, [&] { return nexar_gather(s.data, r.data, s.count, s.dtype, root, h); });
          },
          py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0)
      .def(
          "Scatter",
          [](const Comm& c, const py::object& sendbuf, const py::object& recvbuf, int root) {
            nexar_comm_t h = c.handle("Scatter");
            check_root(h, root, "Scatter");
            const long n = comm_size(h);
            View r = view_of(recvbuf, Access::WRITE, "Scatter", "recvbuf");
            if (comm_rank(h) != root) {  // sendbuf: the root's only
              run("Scatter", h, [&] { return nexar_scatter(nullptr, r.data, r.count, r.dtype, root, h); });
              return;
            }
            View s = view_of(sendbuf, Access::READ, "Scatter", "sendbuf");
            require_same_type(s, "sendbuf", r, "recvbuf", "Scatter");
            require_ratio(s, r, -n, "Scatter");
            run("Scatter", h, [&] { return nexar_scatter(s.data, r.data, r.count, r.dtype, root, h); });
          },
          py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0);

  cls.def(
         "Send",
         [](const Comm& c, const py::object& buf, int dest, int tag) {
           nexar_comm_t h = c.handle("Send");
           View v = view_of(buf, Access::READ, "Send", "buf");
           run("Send", h, [&] { return nexar_send(v.data, v.count, v.dtype, dest, tag, h); });
         },
         py::arg("buf"), py::arg("dest"), py::arg("tag") = 0)
      .def(
          "Recv",
          [](const Comm& c, const py::object& buf, int source, int tag) {
            nexar_comm_t h = c.handle("Recv");
            View v = view_of(buf, Access::WRITE, "Recv", "buf");
            nexar_status_t st{};
            run("Recv", h, [&] { return nexar_recv_status(v.data, v.count, v.dtype, source, tag, h, &st); });
            return py::make_tuple(st.source, st.tag, st.bytes);
          },
          py::arg("buf"), py::arg("source") = NEXAR_ANY_SOURCE, py::arg("tag") = NEXAR_ANY_TAG,
          "Receives into buf; returns (source, tag, bytes) of the message")
      .def(
          "Probe",
          [](const Comm& c, int source, int tag) {
            nexar_comm_t h = c.handle("Probe");
            nexar_status_t st{};
            run("Probe", h, [&] { return nexar_probe(source, tag, h, &st); });
            return py::make_tuple(st.source, st.tag, st.bytes);
          },
          py::arg("source") = NEXAR_ANY_SOURCE, py::arg("tag") = NEXAR_ANY_TAG,
          "Waits for a matching message without receiving it; returns its (source, tag, bytes)")
      .def(
          "Split",
          [](const Comm& c, int color, int key) -> py::object {
            nexar_comm_t h = c.handle("Split");
            nexar_comm_t out = nullptr;
            run("Split", h, [&] { return nexar_comm_split(h, color, key, &out); });
            if (!out) return py::none();  // color UNDEFINED: no communicator
            return py::cast(Comm(out));
          },
          py::arg("color") = 0, py::arg("key") = 0)
      .def("Dup", [](const Comm& c) {
        nexar_comm_t h = c.handle("Dup");
        nexar_comm_t out = nullptr;
        run("Dup", h, [&] { return nexar_comm_dup(h, &out); });
        return Comm(out);
      });
}

}  // namespace nexar_py
