// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_torch._C: makes ProcessGroupNexar objects for the Python side (__init__.py), which
// registers them with torch.distributed as the backend "nexar". The objects are torch's own
// ProcessGroup type in Python (torch._C._distributed_c10d.ProcessGroup).
#include "nexar_torch/process_group.h"

#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace {

c10::intrusive_ptr<c10d::ProcessGroup> from_launcher(std::chrono::milliseconds timeout) {
  py::gil_scoped_release no_gil;  // collective: other Python threads keep running
  return nexar_torch::ProcessGroupNexar::from_launcher(timeout);
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "nexar's PyTorch process group (use through torch.distributed, backend \"nexar\")";
  py::module::import("torch.distributed");  // ProcessGroup's Python type must exist first
  m.def("_from_launcher", &from_launcher, py::arg("timeout"),
        "The group over the world of the launcher that started this process (nexrun, srun).");
}
