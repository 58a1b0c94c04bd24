// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm.h"

#include <string>

#include "args.h"
#include "call.h"
#include "collectives.h"
#include "errors.h"

namespace nexar_py {

namespace {

// Runs a libnexar call that blocks without the GIL, then raises nexar.Error if it failed.
template <typename F>
void run_blocking(const char* call, nexar_comm_t c, F&& f) {
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = f();
  }
  check(r, call, c);
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
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = nexar_comm_destroy(c);
  }
  check(r, "Free", nullptr);
}

Call call_on(const Comm& c, const char* name) {
  Call call;
  call.name = name;
  call.comm = c.handle(name);
  return call;
}

void define_comm(py::module_& m) {
  define_in_place(m);
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
      .def(
          "Split",
          [](const Comm& c, int color, int key) -> py::object {
            nexar_comm_t h = c.handle("Split");
            nexar_comm_t out = nullptr;
            run_blocking("Split", h, [&] { return nexar_comm_split(h, color, key, &out); });
            if (!out) return py::none();  // color UNDEFINED: no communicator
            return py::cast(Comm(out));
          },
          py::arg("color") = 0, py::arg("key") = 0)
      .def("Dup", [](const Comm& c) {
        nexar_comm_t h = c.handle("Dup");
        nexar_comm_t out = nullptr;
        run_blocking("Dup", h, [&] { return nexar_comm_dup(h, &out); });
        return Comm(out);
      });
  define_collectives(cls);
  define_vcollectives(cls);
  define_p2p(cls);
}

}  // namespace nexar_py
