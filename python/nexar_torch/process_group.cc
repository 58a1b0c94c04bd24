// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The group's communicator, its Works, point to point and barrier (collectives.cc has the rest).
#include "nexar_torch/process_group.h"

#include "nexar_torch/torch_args.h"

#include <c10/util/Exception.h>

#include <mutex>

namespace nexar_torch {

Comm::~Comm() {
  // Collective: waits (up to the group's timeout) for the other ranks to destroy it too.
  (void)nexar_comm_destroy(comm_);
}

namespace {

std::shared_ptr<Comm> checked(nexar_result_t rc, nexar_comm_t c, const char *what) {
  TORCH_CHECK(rc == NEXAR_SUCCESS, failure_text(what, rc, nexar_comm_last_error(nullptr)));
  return std::make_shared<Comm>(c);
}

}  // namespace

c10::intrusive_ptr<ProcessGroupNexar> ProcessGroupNexar::from_launcher(std::chrono::milliseconds timeout) {
  // The world lives as long as a group uses it; later full-world groups get their own copy.
  static std::mutex mu;
  static std::weak_ptr<Comm> world;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<Comm> comm;
  if (auto w = world.lock()) {
    nexar_comm_t dup = nullptr;
    nexar_result_t rc = nexar_comm_dup(w->get(), &dup);
    comm = checked(rc, dup, "process group (nexar_comm_dup of the world)");
  } else {
    nexar_comm_t w0 = nullptr;
    nexar_result_t rc = nexar_init(&w0);
    comm = checked(rc, w0, "process group (nexar_init)");
    world = comm;
  }
  return c10::make_intrusive<ProcessGroupNexar>(std::move(comm), timeout);
}

ProcessGroupNexar::ProcessGroupNexar(std::shared_ptr<Comm> comm, std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(
          [&] {
            int r = 0;
            (void)nexar_comm_rank(comm->get(), &r);
            return r;
          }(),
          [&] {
            int s = 0;
            (void)nexar_comm_size(comm->get(), &s);
            return s;
          }()),
      comm_(std::move(comm)),
      completer_(std::make_shared<Completer>()) {
  if (timeout.count() > 0) (void)nexar_comm_set_timeout(comm_->get(), static_cast<double>(timeout.count()) / 1e3);
}

ProcessGroupNexar::~ProcessGroupNexar() {
  // Destroying the communicator ends its pending requests, so the completer can drain.
  comm_.reset();
  completer_->stop();
}

c10::intrusive_ptr<NexarWork> ProcessGroupNexar::launch(c10d::OpType type, const char *what,
                                                        std::vector<at::Tensor> outputs,
                                                        std::vector<at::Tensor> keep_alive, const Start &start) {
  auto work = c10::make_intrusive<NexarWork>(getRank(), type, what, completer_);
  work->outputs = std::move(outputs);
  work->flight.keep_alive = std::move(keep_alive);
  nexar_result_t rc = start(work->flight);
  if (rc != NEXAR_SUCCESS) {
    work->flight.start_rc = rc;
    work->flight.start_error = failure_text(what, rc, nexar_comm_last_error(comm()));
  }
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::send(std::vector<at::Tensor> &tensors, int dst, int tag) {
  const at::Tensor &t = single_tensor(tensors, "send");
  Buffer b = bytes_of(t);
  return launch(c10d::OpType::SEND, "send", {}, {t}, [&](InFlight &f) {
    f.requests.push_back(nullptr);
    return nexar_isend(b.data, b.count, b.dtype, dst, tag, comm(), &f.requests.back());
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::recv(std::vector<at::Tensor> &tensors, int src, int tag) {
  const at::Tensor &t = single_tensor(tensors, "recv");
  Buffer b = bytes_of(t);
  auto work = launch(c10d::OpType::RECV, "recv", {t}, {t}, [&](InFlight &f) {
    f.requests.push_back(nullptr);
    return nexar_irecv(b.data, b.count, b.dtype, src, tag, comm(), &f.requests.back());
  });
  work->source_rank = src;
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::recvAnysource(std::vector<at::Tensor> &, int) {
  TORCH_CHECK(false,
              "nexar recv from any source is not supported (nexar's non-blocking receive does not report the "
              "sender, which torch must return): pass src");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::barrier(const c10d::BarrierOptions &) {
  return launch(c10d::OpType::BARRIER, "barrier", {}, {}, [&](InFlight &f) {
    f.requests.push_back(nullptr);
    return nexar_ibarrier(comm(), &f.requests.back());
  });
}

}  // namespace nexar_torch
