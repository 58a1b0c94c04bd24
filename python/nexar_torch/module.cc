// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_torch._C: makes ProcessGroupNexar objects for the Python side (__init__.py), which
// registers them with torch.distributed as the backend "nexar". The objects are torch's own
// ProcessGroup type in Python (torch._C._distributed_c10d.ProcessGroup).
#include "nexar_torch/deferred_start.h"
#include "nexar_torch/process_group.h"
#include "nexar_torch/torch_args.h"

#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

#include <cstdint>
#include <cstring>

namespace py = pybind11;

namespace {

using nexar_torch::ProcessGroupNexar;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

Group from_launcher(std::chrono::milliseconds timeout) {
  py::gil_scoped_release no_gil;  // collective: other Python threads keep running
  return ProcessGroupNexar::from_launcher(timeout);
}

py::bytes unique_id() {
  nexar_unique_id_t id;
  nexar_result_t rc = nexar_get_unique_id(&id);
  TORCH_CHECK(rc == NEXAR_SUCCESS,
              nexar_torch::failure_text("process group (nexar_get_unique_id)", rc, nexar_comm_last_error(nullptr)));
  return py::bytes(reinterpret_cast<const char *>(id.bytes), sizeof id.bytes);
}

Group from_unique_id(const std::string &bytes, int rank, int size, std::chrono::milliseconds timeout, bool whole) {
  nexar_unique_id_t id;
  TORCH_CHECK(bytes.size() == sizeof id.bytes, "nexar backend: a unique id has ", sizeof id.bytes, " bytes, not ",
              bytes.size(), " (the store holds something else under the id's key)");
  std::memcpy(id.bytes, bytes.data(), sizeof id.bytes);
  py::gil_scoped_release no_gil;
  return ProcessGroupNexar::from_unique_id(id, rank, size, timeout, whole);
}

Group dup_world(std::chrono::milliseconds timeout) {
  py::gil_scoped_release no_gil;
  return ProcessGroupNexar::dup_world(timeout);
}

// Every rank of the world calls it; None where member is false.
py::object split_world(bool member, int key, std::chrono::milliseconds timeout) {
  Group g;
  {
    py::gil_scoped_release no_gil;
    g = ProcessGroupNexar::split_world(member ? 0 : NEXAR_UNDEFINED, key, timeout);
  }
  return g ? py::cast(g) : py::none();
}

ProcessGroupNexar &nexar_group(const Group &g) {
  auto *pg = dynamic_cast<ProcessGroupNexar *>(g.get());
  TORCH_CHECK(pg != nullptr, "nexar backend: not a nexar process group (backend ", g->getBackendName(), ")");
  return *pg;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "nexar's PyTorch process group (use through torch.distributed, backend \"nexar\")";
  py::module::import("torch.distributed");  // ProcessGroup's Python type must exist first
  m.def("_from_launcher", &from_launcher, py::arg("timeout"),
        "The group over the world of the launcher that started this process (nexrun, srun).");
  m.def("_unique_id", &unique_id, "A fresh nexar unique id (nexar_get_unique_id), as bytes.");
  m.def("_from_unique_id", &from_unique_id, py::arg("id"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
        py::arg("whole"), "The group over the job of a unique id (nexar_init_rank).");
  m.def("_has_world", &ProcessGroupNexar::has_world, "Whether the default group's world is alive.");
  m.def("_dup_world", &dup_world, py::arg("timeout"), "A group over a duplicate of the world (nexar_comm_dup).");
  m.def("_split_world", &split_world, py::arg("member"), py::arg("key"), py::arg("timeout"),
        "Called by every rank: the group of the world's members, ordered by key (nexar_comm_split), or None.");
  m.def("_stop_completers", [] {
    py::gil_scoped_release unlocked;  // the jobs may need the GIL to drop tensors
    nexar_torch::Completer::stop_all();
  }, "Runs every queued completion to its end and stops the threads (at interpreter exit).");
  m.def("_origin", [](const Group &g) { return nexar_group(g).origin(); }, py::arg("group"),
        "How a nexar group's communicator was made.");
  m.def("_comm_handle", [](const Group &g) { return reinterpret_cast<uintptr_t>(nexar_group(g).comm()); },
        py::arg("group"),
        "The group's nexar_comm_t as an integer, for libnexar's C API on the group's communicator (ctypes on "
        "_C.__file__ finds its symbols); valid while the group lives. Call libnexar there only while no "
        "torch work on the group is outstanding (async work not yet waited for), or the ranks' orders may differ.");
  m.def("_starter_short_ticks", [] { return nexar_torch::DeferredStart::get().short_ticks(); },
        "Whether the starter thread looks every kTick now (it lately started unattended work).");
}
