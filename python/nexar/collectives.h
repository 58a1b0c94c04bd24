// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The methods of nexar.Comm, each with its non-blocking form: collectives.cc (one count for
// every rank), vcollectives.cc (a count per rank), p2p.cc (point to point).
#pragma once

#include <pybind11/pybind11.h>

namespace nexar_py {

namespace py = pybind11;
class Comm;

void define_collectives(py::class_<Comm>& cls);
void define_vcollectives(py::class_<Comm>& cls);
void define_p2p(py::class_<Comm>& cls);

}  // namespace nexar_py
