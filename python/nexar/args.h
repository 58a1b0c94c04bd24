// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The argument checks the methods of nexar.Comm share: IN_PLACE, roots, and the extents of
// send and receive buffers. Each refusal raises ValueError naming the call and the argument.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "buffers.h"
#include "nexar/nexar.h"

namespace nexar_py {

namespace py = pybind11;

// nexar.IN_PLACE (mpi4py's MPI.IN_PLACE): made once at import.
void define_in_place(py::module_& m);
bool in_place(const py::handle& h);

[[noreturn]] void value_error(const std::string& text);

int comm_size(nexar_comm_t c);
int comm_rank(nexar_comm_t c);
// Raises ValueError unless root is a rank of c.
void check_root(nexar_comm_t c, int root, const char* call);

// recv must hold exactly `factor` times send's elements (or send -factor times recv's when
// factor is negative, for the collectives whose input is p blocks).
void require_ratio(const View& send, const View& recv, long factor, const char* call);

// The (sendbuf, recvbuf) pair of a call whose input and output have related extents, or
// IN_PLACE (then the send pointer is the receive buffer's). `reducing`: both typed.
struct Pair {
  View recv;
  View send;
  bool in_place = false;
};
Pair pair_of(const py::object& sendbuf, const py::object& recvbuf, const char* call, bool reducing, long factor);

}  // namespace nexar_py
