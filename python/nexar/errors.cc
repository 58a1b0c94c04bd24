// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "errors.h"

#include <string>

namespace nexar_py {
namespace {
PyObject* g_error = nullptr;  // nexar.Error: lives as long as the interpreter (the module holds it)
}

void define_error(py::module_& m) {
  g_error = PyErr_NewExceptionWithDoc("nexar.Error", "A libnexar call failed: .code and .name say how.",
                                      PyExc_RuntimeError, nullptr);
  if (!g_error) throw py::error_already_set();
  m.attr("Error") = py::handle(g_error);
}

void check(nexar_result_t r, const char* call, nexar_comm_t comm) {
  if (r == NEXAR_SUCCESS) return;
  const char* detail = nexar_comm_last_error(comm);
  const std::string text = std::string(call) + ": " + nexar_result_string(r) + (detail && *detail ? ": " : "") +
                           (detail ? detail : "");
  py::object e = py::reinterpret_borrow<py::object>(g_error)(text);
  e.attr("code") = static_cast<int>(r);
  e.attr("name") = nexar_result_string(r);
  PyErr_SetObject(g_error, e.ptr());
  throw py::error_already_set();
}

}  // namespace nexar_py
