// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar.Comm: a libnexar communicator with mpi4py's buffer methods (Allreduce, Bcast,
// Send...). Buffers are Python buffers (buffers.h); a blocking call runs without the GIL.
// Free() destroys the communicator (collective); a Comm is never destroyed by the garbage
// collector, whose timing differs between ranks (the package frees what is left at exit).
#pragma once

#include <pybind11/pybind11.h>

#include "nexar/nexar.h"

namespace nexar_py {

namespace py = pybind11;

class Comm {
 public:
  explicit Comm(nexar_comm_t h) : h_(h) {}
  // The handle, or nexar.Error naming call when Free() already ran.
  nexar_comm_t handle(const char* call) const;
  bool freed() const { return h_ == nullptr; }
  void free();  // nexar_comm_destroy; later calls raise
  uintptr_t address() const { return reinterpret_cast<uintptr_t>(h_); }

 private:
  nexar_comm_t h_;
};

// Adds class Comm, IN_PLACE and the methods to m (collectives.h: where the methods live).
void define_comm(py::module_& m);

}  // namespace nexar_py
