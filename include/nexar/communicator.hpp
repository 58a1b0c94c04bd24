// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/communicator.hpp: nexar::Communicator, a communicator that owns its nexar_comm_t:
// point to point, collectives, CUDA streams, splits, fault tolerance and RPC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nexar/dtype.hpp"
#include "nexar/error.hpp"
#include "nexar/nexar.h"
#include "nexar/request.hpp"
#include "nexar/rpc.hpp"
#include "nexar/status.hpp"

namespace nexar {

// A communicator that owns its nexar_comm_t: destroyed (collectively) by the destructor.
//
// Two styles of use. MPI style: the std::span overloads of send/recv block until the buffer
// may be reused; isend/irecv return a Request. numr style (the methods of numr's
// `Communicator` trait, so a binding for numr-style code is a thin wrapper): raw pointers,
// element counts and dtypes; all_reduce is in place; send and recv only start the transfer
// and sync() completes every one started (buffers must stay valid and untouched until
// then); barrier() implies sync(); split() returns the new communicator or nothing.
class Communicator {
 public:
  // The world, from the launcher's environment (a world of one without a launcher).
  static Communicator init() {
    nexar_comm_t c = nullptr;
    check(nexar_init(&c), nullptr, "nexar_init");
    return Communicator(c);
  }
  // Starting without nexrun: one process makes the id and passes it to the others, each
  // joins with its rank (nexar_get_unique_id / nexar_init_rank).
  static nexar_unique_id_t unique_id() {
    nexar_unique_id_t id;
    check(nexar_get_unique_id(&id), nullptr, "nexar_get_unique_id");
    return id;
  }
  static Communicator init_rank(const nexar_unique_id_t& id, int rank, int size) {
    nexar_comm_t c = nullptr;
    check(nexar_init_rank(&id, rank, size, &c), nullptr, "nexar_init_rank");
    return Communicator(c);
  }

  Communicator() = default;
  explicit Communicator(nexar_comm_t adopt) : comm_(adopt) {}
  Communicator(Communicator&& o) noexcept
      : comm_(std::exchange(o.comm_, nullptr)), pending_(std::move(o.pending_)), rpc_handlers_(std::move(o.rpc_handlers_)) {}
  Communicator& operator=(Communicator&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, nullptr);
      pending_ = std::move(o.pending_);
      rpc_handlers_ = std::move(o.rpc_handlers_);
    }
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() { reset(); }

  nexar_comm_t handle() const { return comm_; }
  explicit operator bool() const { return comm_ != nullptr; }

  int rank() const { return query(nexar_comm_rank, "nexar_comm_rank"); }
  int size() const { return query(nexar_comm_size, "nexar_comm_size"); }
  int local_rank() const { return query(nexar_comm_local_rank, "nexar_comm_local_rank"); }
  int local_size() const { return query(nexar_comm_local_size, "nexar_comm_local_size"); }
  void set_timeout(double seconds) { check(nexar_comm_set_timeout(comm_, seconds), comm_, "nexar_comm_set_timeout"); }
  // Fails every pending and later operation on this communicator (local).
  void abort() { check(nexar_comm_abort(comm_), comm_, "nexar_comm_abort"); }
  // Destroys now (collective), reporting an error instead of swallowing it.
  void destroy() { check(nexar_comm_destroy(std::exchange(comm_, nullptr)), nullptr, "nexar_comm_destroy"); }

  template <typename T>
  void send(std::span<const T> buf, int peer, int tag) {
    check(nexar_send(buf.data(), buf.size(), dtype_of<T>(), peer, tag, comm_), comm_, "nexar_send");
  }
  template <typename T>
  void recv(std::span<T> buf, int peer, int tag) {
    check(nexar_recv(buf.data(), buf.size(), dtype_of<T>(), peer, tag, comm_), comm_, "nexar_recv");
  }
  template <typename T>
  Request isend(std::span<const T> buf, int peer, int tag) {
    nexar_request_t r = nullptr;
    check(nexar_isend(buf.data(), buf.size(), dtype_of<T>(), peer, tag, comm_, &r), comm_, "nexar_isend");
    return Request(r);
  }
  template <typename T>
  Request irecv(std::span<T> buf, int peer, int tag) {
    nexar_request_t r = nullptr;
    check(nexar_irecv(buf.data(), buf.size(), dtype_of<T>(), peer, tag, comm_, &r), comm_, "nexar_irecv");
    return Request(r);
  }

  // ---- messages of unknown size or source; gather/scatter lists ------------------------
  // Waits for a matching message without receiving it.
  MessageStatus probe(int source = NEXAR_ANY_SOURCE, int tag = NEXAR_ANY_TAG) {
    nexar_status_t st;
    check(nexar_probe(source, tag, comm_, &st), comm_, "nexar_probe");
    return MessageStatus(st);
  }
  // Never blocks: the matching message's status if one is there.
  std::optional<MessageStatus> iprobe(int source = NEXAR_ANY_SOURCE, int tag = NEXAR_ANY_TAG) {
    nexar_status_t st;
    int flag = 0;
    check(nexar_iprobe(source, tag, comm_, &flag, &st), comm_, "nexar_iprobe");
    if (!flag) return std::nullopt;
    return MessageStatus(st);
  }
  template <typename T>
  MessageStatus recv_status(std::span<T> buf, int source, int tag) {
    nexar_status_t st;
    check(nexar_recv_status(buf.data(), buf.size(), dtype_of<T>(), source, tag, comm_, &st), comm_,
          "nexar_recv_status");
    return MessageStatus(st);
  }
  // One message from the regions in order (see region()).
  void sendv(std::span<const nexar_iovec_t> iov, int peer, int tag) {
    check(nexar_sendv(iov.data(), iov.size(), peer, tag, comm_), comm_, "nexar_sendv");
  }
  // One message scattered across the regions in order.
  MessageStatus recvv(std::span<const nexar_iovec_t> iov, int source, int tag) {
    nexar_status_t st;
    check(nexar_recvv(iov.data(), iov.size(), source, tag, comm_, &st), comm_, "nexar_recvv");
    return MessageStatus(st);
  }

  Request ibarrier() {
    nexar_request_t r = nullptr;
    check(nexar_ibarrier(comm_, &r), comm_, "nexar_ibarrier");
    return Request(r);
  }

  // ---- collectives with a count per rank (nexar.h): counts and displacements in
  // elements, one per rank; a block past its span throws NEXAR_ERR_INVALID_ARGUMENT naming
  // both sizes before anything is sent. The i-forms return a Request; the spans' data must
  // stay valid until it completes (the count arrays are copied).
  template <typename T>
  void allgatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts,
                  std::span<const size_t> displs) {
    check_v(recv.size(), "recvbuf", recvcounts, displs, "nexar_allgatherv");
    check(nexar_allgatherv(send.data(), send.size(), recv.data(), recvcounts.data(), displs.data(), dtype_of<T>(), comm_),
          comm_, "nexar_allgatherv");
  }
  template <typename T>
  Request iallgatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts,
                      std::span<const size_t> displs) {
    check_v(recv.size(), "recvbuf", recvcounts, displs, "nexar_iallgatherv");
    nexar_request_t r = nullptr;
    check(nexar_iallgatherv(send.data(), send.size(), recv.data(), recvcounts.data(), displs.data(), dtype_of<T>(),
                            comm_, &r), comm_, "nexar_iallgatherv");
    return Request(r);
  }
  // recv, recvcounts and displs are read at the root only (empty spans elsewhere).
  template <typename T>
  void gatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts,
               std::span<const size_t> displs, int root) {
    if (rank() == root) check_v(recv.size(), "recvbuf", recvcounts, displs, "nexar_gatherv");
    check(nexar_gatherv(send.data(), send.size(), recv.data(), recvcounts.data(), displs.data(), dtype_of<T>(), root,
                        comm_), comm_, "nexar_gatherv");
  }
  template <typename T>
  Request igatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts,
                   std::span<const size_t> displs, int root) {
    if (rank() == root) check_v(recv.size(), "recvbuf", recvcounts, displs, "nexar_igatherv");
    nexar_request_t r = nullptr;
    check(nexar_igatherv(send.data(), send.size(), recv.data(), recvcounts.data(), displs.data(), dtype_of<T>(), root,
                         comm_, &r), comm_, "nexar_igatherv");
    return Request(r);
  }
  // send, sendcounts and displs are read at the root only.
  template <typename T>
  void scatterv(std::span<const T> send, std::span<const size_t> sendcounts, std::span<const size_t> displs,
                std::span<T> recv, int root) {
    if (rank() == root) check_v(send.size(), "sendbuf", sendcounts, displs, "nexar_scatterv");
    check(nexar_scatterv(send.data(), sendcounts.data(), displs.data(), recv.data(), recv.size(), dtype_of<T>(), root,
                         comm_), comm_, "nexar_scatterv");
  }
  template <typename T>
  Request iscatterv(std::span<const T> send, std::span<const size_t> sendcounts, std::span<const size_t> displs,
                    std::span<T> recv, int root) {
    if (rank() == root) check_v(send.size(), "sendbuf", sendcounts, displs, "nexar_iscatterv");
    nexar_request_t r = nullptr;
    check(nexar_iscatterv(send.data(), sendcounts.data(), displs.data(), recv.data(), recv.size(), dtype_of<T>(), root,
                          comm_, &r), comm_, "nexar_iscatterv");
    return Request(r);
  }
  template <typename T>
  void alltoallv(std::span<const T> send, std::span<const size_t> sendcounts, std::span<const size_t> sdispls,
                 std::span<T> recv, std::span<const size_t> recvcounts, std::span<const size_t> rdispls) {
    check_v(send.size(), "sendbuf", sendcounts, sdispls, "nexar_alltoallv");
    check_v(recv.size(), "recvbuf", recvcounts, rdispls, "nexar_alltoallv");
    check(nexar_alltoallv(send.data(), sendcounts.data(), sdispls.data(), recv.data(), recvcounts.data(),
                          rdispls.data(), dtype_of<T>(), comm_), comm_, "nexar_alltoallv");
  }
  template <typename T>
  Request ialltoallv(std::span<const T> send, std::span<const size_t> sendcounts, std::span<const size_t> sdispls,
                     std::span<T> recv, std::span<const size_t> recvcounts, std::span<const size_t> rdispls) {
    check_v(send.size(), "sendbuf", sendcounts, sdispls, "nexar_ialltoallv");
    check_v(recv.size(), "recvbuf", recvcounts, rdispls, "nexar_ialltoallv");
    nexar_request_t r = nullptr;
    check(nexar_ialltoallv(send.data(), sendcounts.data(), sdispls.data(), recv.data(), recvcounts.data(),
                           rdispls.data(), dtype_of<T>(), comm_, &r), comm_, "nexar_ialltoallv");
    return Request(r);
  }
  // send: sum(recvcounts) elements; recv: at least recvcounts[rank()].
  template <typename T>
  void reduce_scatter_v(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts, nexar_op_t op) {
    check_rs(send.size(), recv.size(), recvcounts, "nexar_reduce_scatter_v");
    check(nexar_reduce_scatter_v(send.data(), recv.data(), recvcounts.data(), dtype_of<T>(), op, comm_), comm_,
          "nexar_reduce_scatter_v");
  }
  template <typename T>
  Request ireduce_scatter_v(std::span<const T> send, std::span<T> recv, std::span<const size_t> recvcounts,
                            nexar_op_t op) {
    check_rs(send.size(), recv.size(), recvcounts, "nexar_ireduce_scatter_v");
    nexar_request_t r = nullptr;
    check(nexar_ireduce_scatter_v(send.data(), recv.data(), recvcounts.data(), dtype_of<T>(), op, comm_, &r), comm_,
          "nexar_ireduce_scatter_v");
    return Request(r);
  }

  // ---- numr style ------------------------------------------------------------------
  size_t world_size() const { return static_cast<size_t>(size()); }

  void all_reduce(void* ptr, size_t count, nexar_dtype_t dtype, nexar_op_t op) {
    check(nexar_allreduce(ptr, ptr, count, dtype, op, comm_), comm_, "nexar_allreduce");
  }
  void broadcast(void* ptr, size_t count, nexar_dtype_t dtype, int root) {
    check(nexar_broadcast(ptr, count, dtype, root, comm_), comm_, "nexar_broadcast");
  }
  // send_ptr: count elements; recv_ptr: count * world_size() elements.
  void all_gather(const void* send_ptr, void* recv_ptr, size_t count, nexar_dtype_t dtype) {
    check(nexar_allgather(send_ptr, recv_ptr, count, dtype, comm_), comm_, "nexar_allgather");
  }
  // send_ptr: count * world_size() elements; recv_ptr: count elements (this rank's block).
  void reduce_scatter(const void* send_ptr, void* recv_ptr, size_t count, nexar_dtype_t dtype, nexar_op_t op) {
    check(nexar_reduce_scatter(send_ptr, recv_ptr, count, dtype, op, comm_), comm_, "nexar_reduce_scatter");
  }
  // Starts a send; complete after sync().
  void send(const void* ptr, size_t count, nexar_dtype_t dtype, int dest, int tag) {
    nexar_request_t r = nullptr;
    check(nexar_isend(ptr, count, dtype, dest, tag, comm_, &r), comm_, "nexar_isend");
    pending_.emplace_back(r);
  }
  // Starts a receive; the data is there after sync().
  void recv(void* ptr, size_t count, nexar_dtype_t dtype, int src, int tag) {
    nexar_request_t r = nullptr;
    check(nexar_irecv(ptr, count, dtype, src, tag, comm_, &r), comm_, "nexar_irecv");
    pending_.emplace_back(r);
  }
  // Completes every send and recv started; throws the first error (after waiting for all).
  void sync() {
    std::vector<Request> ops = std::move(pending_);
    pending_.clear();
    std::optional<Error> first;
    for (Request& r : ops) {
      try {
        r.wait();
      } catch (const Error& e) {
        if (!first) first = e;
      }
    }
    if (first) throw *first;
    sync_comm_stream();  // and device work queued on a CUDA stream (no-op without)
  }
  void barrier() {
    sync();
    check(nexar_barrier(comm_), comm_, "nexar_barrier");
  }

  // ---- CUDA streams and events (numr's StreamSyncOps) -------------------------------
  // Handles are cudaStream_t / cudaEvent_t as integers. The "comm stream" is the stream set
  // with set_cuda_stream, else the communicator's own. Each needs CUDA support (the plugin):
  // without it they throw Error(NEXAR_ERR_UNSUPPORTED).
  void set_cuda_stream(uint64_t stream) {
    check(nexar_comm_set_cuda_stream(comm_, reinterpret_cast<void*>(stream)), comm_, "nexar_comm_set_cuda_stream");
  }
  uint64_t create_event() {
    void* ev = nullptr;
    check(nexar_cuda_event_create(comm_, &ev), comm_, "nexar_cuda_event_create");
    return reinterpret_cast<uint64_t>(ev);
  }
  void destroy_event(uint64_t event) {
    check(nexar_cuda_event_destroy(comm_, reinterpret_cast<void*>(event)), comm_, "nexar_cuda_event_destroy");
  }
  void record_on_comm_stream(uint64_t event) { record_on_stream(event, 0); }
  void record_on_stream(uint64_t event, uint64_t stream) {
    check(nexar_cuda_event_record(comm_, reinterpret_cast<void*>(event), reinterpret_cast<void*>(stream)), comm_,
          "nexar_cuda_event_record");
  }
  void comm_stream_wait_event(uint64_t event) { stream_wait_event(0, event); }
  void stream_wait_event(uint64_t stream, uint64_t event) {
    check(nexar_cuda_stream_wait_event(comm_, reinterpret_cast<void*>(stream), reinterpret_cast<void*>(event)), comm_,
          "nexar_cuda_stream_wait_event");
  }
  // Blocks until the device work issued on this communicator is complete.
  void sync_comm_stream() { check(nexar_comm_sync(comm_), comm_, "nexar_comm_sync"); }
  // Collective. Ranks with the same color (>= 0) form a communicator ordered by (key, rank);
  // NEXAR_UNDEFINED gives nothing.
  std::optional<Communicator> split(int color, int key) {
    nexar_comm_t c = nullptr;
    check(nexar_comm_split(comm_, color, key, &c), comm_, "nexar_comm_split");
    if (!c) return std::nullopt;
    return Communicator(c);
  }
  Communicator dup() {
    nexar_comm_t c = nullptr;
    check(nexar_comm_dup(comm_, &c), comm_, "nexar_comm_dup");
    return Communicator(c);
  }
  // The world only: a world of the original size from the survivors and the launcher's
  // replacements (nexrun --respawn); throws (NEXAR_ERR_PEER_LOST) when a failed rank has
  // no replacement within the timeout.
  Communicator rebuild() {
    nexar_comm_t c = nullptr;
    check(nexar_comm_rebuild(comm_, &c), comm_, "nexar_comm_rebuild");
    return Communicator(c);
  }

  // ---- fault tolerance (docs/fault-tolerance.md); these work on a broken communicator ----
  // Not collective: every member's pending and later calls fail with NEXAR_ERR_REVOKED.
  void revoke() { check(nexar_comm_revoke(comm_), comm_, "nexar_comm_revoke"); }
  // What every live member of an agreement gets alike.
  struct Agreement {
    int flag;           // the AND of the live members' flags
    bool peer_failed;   // a member is known failed (the C call's NEXAR_ERR_PEER_LOST)
  };
  // Fault-tolerant agreement; throws only when this rank got no decision (timeout, or the
  // others declared it failed).
  Agreement agree(int flag) {
    const nexar_result_t r = nexar_comm_agree(comm_, &flag);
    if (r != NEXAR_ERR_PEER_LOST) check(r, comm_, "nexar_comm_agree");
    return Agreement{flag, r == NEXAR_ERR_PEER_LOST};
  }
  // Collective over the live members: the survivors, in this communicator's order.
  Communicator shrink() {
    nexar_comm_t c = nullptr;
    check(nexar_comm_shrink(comm_, &c), comm_, "nexar_comm_shrink");
    return Communicator(c);
  }
  // Remote procedure calls (nexar_rpc_*). A handler gets the caller's rank and the argument
  // bytes and returns the result bytes; an Error it throws fails the caller's call with its
  // code (another exception: NEXAR_ERR_INTERNAL). It runs on a library thread, one call at
  // a time per communicator, and lives as long as this Communicator.
  using RpcHandler = nexar::RpcHandler;
  void rpc_register(uint32_t fn_id, RpcHandler h) {
    auto owned = std::make_unique<RpcHandler>(std::move(h));
    check(nexar_rpc_register(comm_, fn_id, &detail::run_rpc_handler, owned.get()), comm_, "nexar_rpc_register");
    rpc_handlers_.push_back(std::move(owned));
  }
  // Calls fn_id at target and waits: its result, at most capacity bytes (a larger one
  // throws NEXAR_ERR_INVALID_ARGUMENT, the handler having run once).
  std::vector<uint8_t> rpc_call(int target, uint32_t fn_id, std::span<const uint8_t> args, size_t capacity = 4096) {
    std::vector<uint8_t> result(capacity);
    size_t n = 0;
    check(nexar_rpc_call(comm_, target, fn_id, args.data(), args.size(), result.data(), result.size(), &n), comm_,
          "nexar_rpc_call");
    result.resize(n);
    return result;
  }
  // Starts a call: result and *result_bytes are written once the Request completes.
  Request rpc_icall(int target, uint32_t fn_id, std::span<const uint8_t> args, std::span<uint8_t> result,
                    size_t* result_bytes) {
    nexar_request_t r = nullptr;
    check(nexar_rpc_icall(comm_, target, fn_id, args.data(), args.size(), result.data(), result.size(), result_bytes, &r),
          comm_, "nexar_rpc_icall");
    return Request(r);
  }

  // Ranks known failed here, ascending (local).
  std::vector<int> failed_ranks() const {
    size_t n = 0;
    check(nexar_comm_failed_ranks(comm_, nullptr, 0, &n), comm_, "nexar_comm_failed_ranks");
    std::vector<int> r(n);
    while (!r.empty()) {
      check(nexar_comm_failed_ranks(comm_, r.data(), r.size(), &n), comm_, "nexar_comm_failed_ranks");
      if (n <= r.size()) break;
      r.resize(n);  // more failed meanwhile
    }
    r.resize(n);
    return r;
  }

 private:
  int query(nexar_result_t (*fn)(nexar_comm_t, int*), const char* name) const {
    int v = -1;
    check(fn(comm_, &v), comm_, name);
    return v;
  }
  void check_v(size_t n, const char* buf, std::span<const size_t> counts, std::span<const size_t> displs,
               const char* call) const {
    check_blocks(call, buf, n, counts, displs, static_cast<size_t>(size()));
  }
  void check_rs(size_t nsend, size_t nrecv, std::span<const size_t> recvcounts, const char* call) const {
    const size_t p = static_cast<size_t>(size()), me = static_cast<size_t>(rank());
    size_t total = 0;
    for (size_t i = 0; i < p && i < recvcounts.size(); ++i) total += recvcounts[i];
    if (recvcounts.size() < p || total > nsend || recvcounts[me] > nrecv)
      throw Error(NEXAR_ERR_INVALID_ARGUMENT,
                  std::string(call) + ": " + std::to_string(recvcounts.size()) + " recvcounts for " +
                      std::to_string(p) + " ranks adding up to " + std::to_string(total) + " elements, sendbuf holds " +
                      std::to_string(nsend) + ", recvbuf " + std::to_string(nrecv));
  }
  void reset() {
    pending_.clear();  // each Request waits for its operation
    if (comm_) (void)nexar_comm_destroy(std::exchange(comm_, nullptr));
  }
  nexar_comm_t comm_ = nullptr;
  std::vector<Request> pending_;  // numr-style sends and receives awaiting sync()
  // Outlive the communicator (reset() destroys it first): its thread may run them until then.
  std::vector<std::unique_ptr<RpcHandler>> rpc_handlers_;
};

}  // namespace nexar
