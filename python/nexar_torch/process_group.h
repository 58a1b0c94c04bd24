// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// ProcessGroupNexar: torch.distributed's process group on a nexar communicator.
//
// Every operation checks its tensors and returns a NexarWork (work.h): point to point
// starts nexar's non-blocking call in the caller's thread; a collective is deferred until
// its first need (deferred_start.h), so a blocking torch call runs nexar's blocking call
// on the caller's thread. Operations that only move
// data move bytes, so every torch dtype works; reductions map dtype and op (torch_args.h).
// Operations nexar has no single call for are built from its calls:
// list outputs are gathered into one buffer and copied out after completion.
#pragma once

#include "nexar_torch/work.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <nexar/nexar.h>

#include <chrono>
#include <functional>
#include <memory>

namespace nexar_torch {

// A communicator the group owns: destroyed (collectively) with the last reference.
class Comm {
 public:
  explicit Comm(nexar_comm_t c) : comm_(c) {}
  ~Comm();
  Comm(const Comm &) = delete;
  Comm &operator=(const Comm &) = delete;
  nexar_comm_t get() const { return comm_; }

 private:
  nexar_comm_t comm_;
};

class ProcessGroupNexar final : public c10d::ProcessGroup {
 public:
  // The group over the launcher's world (nexrun, srun): nexar_init, once per process.
  static c10::intrusive_ptr<ProcessGroupNexar> from_launcher(std::chrono::milliseconds timeout);
  // The group over a job joined by a unique id (nexar_init_rank); whole: it is the default
  // group's world (later whole-world groups duplicate it).
  static c10::intrusive_ptr<ProcessGroupNexar> from_unique_id(const nexar_unique_id_t &id, int rank, int size,
                                                              std::chrono::milliseconds timeout, bool whole);
  // Whether a world (launcher's or unique id's) is alive, and a group over a duplicate of it
  // (nexar_comm_dup: collective over the world).
  static bool has_world();
  static c10::intrusive_ptr<ProcessGroupNexar> dup_world(std::chrono::milliseconds timeout);
  // A group over the world's ranks of one color, ordered by key (nexar_comm_split:
  // collective over the world, every rank calls it); null where color is NEXAR_UNDEFINED.
  static c10::intrusive_ptr<ProcessGroupNexar> split_world(int color, int key, std::chrono::milliseconds timeout);

  // How the group's communicator was made ("the launcher's world", "a unique id's job",
  // "a duplicate of the world", "a split of the world").
  ProcessGroupNexar(std::shared_ptr<Comm> comm, std::chrono::milliseconds timeout, const char *origin);
  const char *origin() const { return origin_; }
  ~ProcessGroupNexar() override;

  const std::string getBackendName() const override { return "nexar"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
                                           const c10d::BroadcastOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
                                           const c10d::AllreduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor> &tensors,
                                                     const c10d::AllreduceCoalescedOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors, const c10d::ReduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                           std::vector<at::Tensor> &inputs,
                                           const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
                                                 const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
                                        std::vector<at::Tensor> &inputs, const c10d::GatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
                                         std::vector<std::vector<at::Tensor>> &inputs,
                                         const c10d::ScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
                                                std::vector<std::vector<at::Tensor>> &inputs,
                                                const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                                      const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
                                               std::vector<int64_t> &output_splits,
                                               std::vector<int64_t> &input_splits,
                                               const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs, std::vector<at::Tensor> &inputs,
                                          const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int src, int tag) override;
  // A receive from any rank; the Work's sourceRank() is the sender (nexar_wait_status).
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors, int tag) override;
  // batch_isend_irecv: the sends and receives between them form one nexar group
  // (nexar_group_start / nexar_group_end), started together.
  void startCoalescing() override;
  void endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>> &reqs) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override;

  nexar_comm_t comm() const { return comm_->get(); }

 private:
  using Start = std::function<nexar_result_t(InFlight &)>;
  // A Work for one point-to-point operation: runs start (which posts requests into the
  // flight) now, records a failed start with nexar's message, and returns the Work.
  c10::intrusive_ptr<NexarWork> launch(c10d::OpType type, const char *what, std::vector<at::Tensor> outputs,
                                       std::vector<at::Tensor> keep_alive, const Start &start);
  // A Work for one collective, nexar's call deferred (deferred_start.h); inside
  // batch_isend_irecv's coalescing it starts at once (the nexar group holds it).
  c10::intrusive_ptr<NexarWork> launch_collective(c10d::OpType type, const char *what,
                                                  std::vector<at::Tensor> outputs, std::vector<at::Tensor> keep_alive,
                                                  Call call);
  c10::intrusive_ptr<NexarWork> new_work(c10d::OpType type, const char *what, std::vector<at::Tensor> outputs,
                                         std::vector<at::Tensor> keep_alive);
  // All-to-all of bytes: send_bytes[j] from send's consecutive blocks to rank j,
  // recv_bytes[i] into recv's consecutive blocks from rank i (nexar_ialltoallv).
  c10::intrusive_ptr<NexarWork> launch_alltoallv(const void *send, const std::vector<size_t> &send_bytes, void *recv,
                                                 const std::vector<size_t> &recv_bytes, c10d::OpType type,
                                                 const char *what, std::vector<at::Tensor> outputs,
                                                 std::vector<at::Tensor> keep_alive);

  std::shared_ptr<Comm> comm_;
  std::shared_ptr<Completer> completer_;
  bool coalescing_ = false;  // between startCoalescing and endCoalescing
  const char *origin_;
};

}  // namespace nexar_torch
