// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The group's communicator, its Works, point to point and barrier (collectives.cc has the rest).
#include "nexar_torch/process_group.h"

#include "nexar_torch/deferred_start.h"
#include "nexar_torch/nexar_call.h"
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

// The default group's world lives as long as a group uses it; later whole-world groups get
// their own duplicate of it.
std::mutex world_mu;
std::weak_ptr<Comm> world;

}  // namespace

c10::intrusive_ptr<ProcessGroupNexar> ProcessGroupNexar::from_launcher(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(world_mu);
  TORCH_CHECK(!world.lock(), "nexar backend: the world already exists");
  nexar_comm_t w = nullptr;
  nexar_result_t rc = nexar_init(&w);
  auto comm = checked(rc, w, "process group (nexar_init)");
  world = comm;
  return c10::make_intrusive<ProcessGroupNexar>(std::move(comm), timeout, "the launcher's world");
}

c10::intrusive_ptr<ProcessGroupNexar> ProcessGroupNexar::from_unique_id(const nexar_unique_id_t &id, int rank,
                                                                        int size, std::chrono::milliseconds timeout,
                                                                        bool whole) {
  nexar_comm_t w = nullptr;
  nexar_result_t rc = nexar_init_rank(&id, rank, size, &w);
  auto comm = checked(rc, w, "process group (nexar_init_rank)");
  if (whole) {
    std::lock_guard<std::mutex> lock(world_mu);
    if (!world.lock()) world = comm;
  }
  return c10::make_intrusive<ProcessGroupNexar>(std::move(comm), timeout, "a unique id's job");
}

bool ProcessGroupNexar::has_world() {
  std::lock_guard<std::mutex> lock(world_mu);
  return !world.expired();
}

namespace {

// The world, for a collective over it: a deferred collective starts first (every rank
// runs the world's collectives in the same order).
std::shared_ptr<Comm> world_for(const char *what) {
  std::shared_ptr<Comm> w;
  {
    std::lock_guard<std::mutex> lock(world_mu);
    w = world.lock();
  }
  TORCH_CHECK(w, "nexar backend: no world to ", what);
  DeferredStart::get().flush();
  return w;
}

}  // namespace

c10::intrusive_ptr<ProcessGroupNexar> ProcessGroupNexar::dup_world(std::chrono::milliseconds timeout) {
  std::shared_ptr<Comm> w = world_for("duplicate");
  nexar_comm_t dup = nullptr;
  nexar_result_t rc = nexar_comm_dup(w->get(), &dup);
  TORCH_CHECK(rc == NEXAR_SUCCESS, failure_text("process group (nexar_comm_dup of the world)", rc,
                                                nexar_comm_last_error(w->get())));
  return c10::make_intrusive<ProcessGroupNexar>(std::make_shared<Comm>(dup), timeout, "a duplicate of the world");
}

c10::intrusive_ptr<ProcessGroupNexar> ProcessGroupNexar::split_world(int color, int key,
                                                                     std::chrono::milliseconds timeout) {
  std::shared_ptr<Comm> w = world_for("split");
  nexar_comm_t part = nullptr;
  nexar_result_t rc = nexar_comm_split(w->get(), color, key, &part);
  TORCH_CHECK(rc == NEXAR_SUCCESS, failure_text("new_group (nexar_comm_split of the world)", rc,
                                                nexar_comm_last_error(w->get())));
  if (part == nullptr) return {};
  return c10::make_intrusive<ProcessGroupNexar>(std::make_shared<Comm>(part), timeout, "a split of the world");
}

ProcessGroupNexar::ProcessGroupNexar(std::shared_ptr<Comm> comm, std::chrono::milliseconds timeout,
                                     const char *origin)
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
      completer_(Completer::make()),
      origin_(origin) {
  if (timeout.count() > 0) (void)nexar_comm_set_timeout(comm_->get(), static_cast<double>(timeout.count()) / 1e3);
}

ProcessGroupNexar::~ProcessGroupNexar() {
  // Destroying the communicator ends its pending requests, so the completer can drain; a
  // deferred collective starts first (the other ranks run it).
  DeferredStart::get().flush();
  comm_.reset();
  completer_->stop();
}

c10::intrusive_ptr<NexarWork> ProcessGroupNexar::new_work(c10d::OpType type, const char *what,
                                                          std::vector<at::Tensor> outputs,
                                                          std::vector<at::Tensor> keep_alive) {
  auto work = c10::make_intrusive<NexarWork>(getRank(), type, what, comm(), completer_);
  work->outputs = std::move(outputs);
  work->flight.keep_alive = std::move(keep_alive);
  return work;
}

c10::intrusive_ptr<NexarWork> ProcessGroupNexar::launch(c10d::OpType type, const char *what,
                                                        std::vector<at::Tensor> outputs,
                                                        std::vector<at::Tensor> keep_alive, const Start &start) {
  DeferredStart::get().flush();  // an earlier collective starts first
  auto work = new_work(type, what, std::move(outputs), std::move(keep_alive));
  work->record_start(start(work->flight));
  return work;
}

c10::intrusive_ptr<NexarWork> ProcessGroupNexar::launch_collective(c10d::OpType type, const char *what,
                                                                   std::vector<at::Tensor> outputs,
                                                                   std::vector<at::Tensor> keep_alive,
                                                                   Call call) {
  auto work = new_work(type, what, std::move(outputs), std::move(keep_alive));
  work->flight.call = std::move(call);
  if (coalescing_) {
    DeferredStart::get().flush();
    work->start_async();
  } else {
    DeferredStart::get().defer(work);
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
  auto work = launch(c10d::OpType::RECV, "recv", {t}, {}, [&](InFlight &f) {
    f.requests.push_back(nullptr);
    return nexar_irecv(b.data, b.count, b.dtype, src, tag, comm(), &f.requests.back());
  });
  work->source_rank = src;
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::recvAnysource(std::vector<at::Tensor> &tensors, int tag) {
  const at::Tensor &t = single_tensor(tensors, "recv");
  Buffer b = bytes_of(t);
  auto work = launch(c10d::OpType::RECVANYSOURCE, "recv from any source", {t}, {}, [&](InFlight &f) {
    f.want_source = true;  // completed by nexar_wait_status, which tells the sender
    f.requests.push_back(nullptr);
    return nexar_irecv(b.data, b.count, b.dtype, NEXAR_ANY_SOURCE, tag, comm(), &f.requests.back());
  });
  return work;
}

void ProcessGroupNexar::startCoalescing() {
  DeferredStart::get().flush();
  nexar_result_t rc = nexar_group_start();
  TORCH_CHECK(rc == NEXAR_SUCCESS, failure_text("batch_isend_irecv (nexar_group_start)", rc,
                                                nexar_comm_last_error(nullptr)));
  coalescing_ = true;
}

void ProcessGroupNexar::endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>> &) {
  // Starts the batch's sends and receives together and returns once all are done; each
  // Work then reports its own operation's result.
  coalescing_ = false;
  nexar_result_t rc = nexar_group_end();
  TORCH_CHECK(rc == NEXAR_SUCCESS, failure_text("batch_isend_irecv (nexar_group_end)", rc,
                                                nexar_comm_last_error(nullptr)));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::barrier(const c10d::BarrierOptions &) {
  return launch_collective(c10d::OpType::BARRIER, "barrier", {}, {},
                           nexar_call(nexar_barrier, nexar_ibarrier, comm()));
}

}  // namespace nexar_torch
