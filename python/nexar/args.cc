// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "args.h"

#include "errors.h"

namespace nexar_py {
namespace {
py::object g_in_place;  // lives as long as the interpreter (the module holds it too)
}

void define_in_place(py::module_& m) {
  g_in_place = py::module_::import("builtins").attr("object")();
  m.attr("IN_PLACE") = g_in_place;
}

bool in_place(const py::handle& h) { return h.is(g_in_place); }

void value_error(const std::string& text) {
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

void check_root(nexar_comm_t c, int root, const char* call) {
  const int n = comm_size(c);
  if (root < 0 || root >= n)
    value_error(std::string(call) + ": root " + std::to_string(root) + " is not a rank of this communicator (0.." +
                std::to_string(n - 1) + ")");
}

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

Pair pair_of(const py::object& sendbuf, const py::object& recvbuf, const char* call, bool reducing, long factor) {
  Pair p;
  p.recv = view_of(recvbuf, Access::WRITE, call, "recvbuf");
  if (reducing) require_typed(p.recv, call, "recvbuf");
  if (in_place(sendbuf)) {
    p.in_place = true;
    return p;
  }
  p.send = view_of(sendbuf, Access::READ, call, "sendbuf");
  require_same_type(p.send, "sendbuf", p.recv, "recvbuf", call);
  require_ratio(p.send, p.recv, factor, call);
  return p;
}

}  // namespace nexar_py
