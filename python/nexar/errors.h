// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A libnexar failure as the Python exception nexar.Error (a RuntimeError) whose message
// names the call, the result code and libnexar's detail, with .code (the nexar_result_t)
// and .name ("NEXAR_ERR_TIMEOUT").
#pragma once

#include <pybind11/pybind11.h>

#include "nexar/nexar.h"

namespace nexar_py {

namespace py = pybind11;

// Creates nexar.Error in module m (once, at import).
void define_error(py::module_& m);

// Raises nexar.Error unless r is NEXAR_SUCCESS; comm (or NULL) says whose last error to tell.
void check(nexar_result_t r, const char* call, nexar_comm_t comm);

}  // namespace nexar_py
