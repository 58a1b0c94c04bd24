// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar._core: libnexar for Python programs without torch, in mpi4py's shape (the package
// nexar/__init__.py wraps it: COMM_WORLD on first use, objects by pickle, freeing at exit).
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

#include "call.h"
#include "comm.h"
#include "errors.h"
#include "nexar/nexar.h"

namespace py = pybind11;
using nexar_py::Comm;

namespace {

Comm init_world() {
  nexar_comm_t w = nullptr;
  nexar_py::check(nexar_init(&w), "nexar_init", nullptr);
  return Comm(w);
}

py::bytes unique_id() {
  nexar_unique_id_t id;
  nexar_py::check(nexar_get_unique_id(&id), "nexar_get_unique_id", nullptr);
  return py::bytes(reinterpret_cast<const char*>(id.bytes), sizeof id.bytes);
}

Comm init_rank(const py::bytes& id_bytes, int rank, int size) {
  const std::string s = id_bytes;
  nexar_unique_id_t id;
  if (s.size() != sizeof id.bytes) {
    PyErr_SetString(PyExc_ValueError, ("init_rank: the id has " + std::to_string(s.size()) + " bytes, not " +
                                       std::to_string(sizeof id.bytes) + " (pass what get_unique_id returned)")
                                          .c_str());
    throw py::error_already_set();
  }
  std::memcpy(id.bytes, s.data(), sizeof id.bytes);
  nexar_comm_t w = nullptr;
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = nexar_init_rank(&id, rank, size, &w);
  }
  nexar_py::check(r, "nexar_init_rank", nullptr);
  return Comm(w);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "libnexar's communicators for Python buffers (numpy arrays, bytearray, memoryview)";
  nexar_py::define_error(m);
  nexar_py::define_comm(m);
  nexar_py::define_request(m);
  m.def("init", &init_world, "nexar_init: the world of the job nexrun (or nothing: one rank) started");
  m.def("get_unique_id", &unique_id, "nexar_get_unique_id: a fresh job's id, to pass to every rank (bytes)");
  m.def("init_rank", &init_rank, py::arg("unique_id"), py::arg("rank"), py::arg("size"),
        "nexar_init_rank: join the job of unique_id as rank of size");
  m.def("version", [] { return std::string(nexar_version()); });
}
