// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The collectives of ProcessGroupNexar, each one nexar collective, deferred (plus copies
// where torch passes lists of tensors and nexar wants one buffer).
#include "nexar_torch/process_group.h"

#include "nexar_torch/nexar_call.h"

#include "nexar_torch/torch_args.h"

#include <c10/util/Exception.h>

namespace nexar_torch {

namespace {

// Copies flat's consecutive blocks into the tensors of list.
void copy_out(const at::Tensor &flat, std::vector<at::Tensor> &list) {
  int64_t offset = 0;
  for (at::Tensor &t : list) {
    t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

// The tensors of list, one after the other, in one new buffer.
at::Tensor flattened(const std::vector<at::Tensor> &list) {
  std::vector<at::Tensor> flat;
  flat.reserve(list.size());
  for (const at::Tensor &t : list) flat.push_back(t.reshape({-1}));
  return at::cat(flat);
}

// Bytes per peer of t cut by split sizes in rows (empty: equal rows for the n peers).
std::vector<size_t> split_bytes(const at::Tensor &t, const std::vector<int64_t> &splits, int n, const char *side) {
  const int64_t rows = t.dim() > 0 ? t.size(0) : 1;
  const int64_t row_bytes = rows > 0 ? static_cast<int64_t>(t.nbytes()) / rows : 0;
  std::vector<size_t> bytes(n);
  if (splits.empty()) {
    TORCH_CHECK(rows % n == 0, "nexar alltoall_base: ", side, " has ", rows, " rows, not divisible by ", n);
    for (int i = 0; i < n; ++i) bytes[i] = static_cast<size_t>(rows / n * row_bytes);
    return bytes;
  }
  TORCH_CHECK(static_cast<int>(splits.size()) == n, "nexar alltoall_base: ", splits.size(), " ", side,
              " split sizes for a group of ", n);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    TORCH_CHECK(splits[i] >= 0, "nexar alltoall_base: negative ", side, " split size ", splits[i]);
    total += splits[i];
    bytes[i] = static_cast<size_t>(splits[i] * row_bytes);
  }
  TORCH_CHECK(total == rows, "nexar alltoall_base: ", side, " split sizes add up to ", total,
              " rows, the tensor has ", rows);
  return bytes;
}

// Displacements of consecutive blocks of the given sizes.
std::vector<size_t> displacements(const std::vector<size_t> &sizes) {
  std::vector<size_t> d(sizes.size());
  for (size_t i = 1; i < sizes.size(); ++i) d[i] = d[i - 1] + sizes[i - 1];
  return d;
}

void check_root(int64_t root, int size, const char *what) {
  TORCH_CHECK(root >= 0 && root < size, "nexar ", what, ": root rank ", root, " outside [0, ", size, ")");
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::broadcast(std::vector<at::Tensor> &tensors,
                                                            const c10d::BroadcastOptions &opts) {
  const at::Tensor &t = single_tensor(tensors, "broadcast");
  check_root(opts.rootRank, getSize(), "broadcast");
  Buffer b = bytes_of(t);
  return launch_collective(
      c10d::OpType::BROADCAST, "broadcast", {t}, {},
      nexar_call(nexar_broadcast, nexar_ibroadcast, b.data, b.count, b.dtype, static_cast<int>(opts.rootRank), comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::allreduce(std::vector<at::Tensor> &tensors,
                                                            const c10d::AllreduceOptions &opts) {
  const at::Tensor &t = single_tensor(tensors, "allreduce");
  Reduction r = reduction_for(t, opts.reduceOp, "allreduce");
  premultiplied(t, r, /*in_place=*/true);
  return launch_collective(c10d::OpType::ALLREDUCE, "allreduce", {t}, {},
                           nexar_call(nexar_allreduce, nexar_iallreduce, static_cast<const void *>(t.data_ptr()),
                                      t.data_ptr(), static_cast<size_t>(t.numel()), r.dtype, r.op, comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::allreduce_coalesced(std::vector<at::Tensor> &tensors,
                                                                      const c10d::AllreduceCoalescedOptions &opts) {
  TORCH_CHECK(!tensors.empty(), "nexar allreduce_coalesced: no tensors");
  check_like(tensors, tensors[0], -1, "allreduce_coalesced");
  Reduction r = reduction_for(tensors[0], opts.reduceOp, "allreduce_coalesced");
  std::vector<void *> ptrs;
  std::vector<size_t> counts;
  for (const at::Tensor &t : tensors) {
    premultiplied(t, r, /*in_place=*/true);
    ptrs.push_back(t.data_ptr());
    counts.push_back(static_cast<size_t>(t.numel()));
  }
  return launch_collective(c10d::OpType::ALLREDUCE_COALESCED, "allreduce_coalesced", tensors, {},
                           [ptrs, counts, r, c = comm()](nexar_request_t *req) {
                             return req ? nexar_iallreduce_bucketed(ptrs.data(), counts.data(), ptrs.size(), r.dtype,
                                                                    r.op, c, req)
                                        : nexar_allreduce_bucketed(ptrs.data(), counts.data(), ptrs.size(), r.dtype,
                                                                   r.op, c);
                           });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::reduce(std::vector<at::Tensor> &tensors,
                                                         const c10d::ReduceOptions &opts) {
  const at::Tensor &t = single_tensor(tensors, "reduce");
  check_root(opts.rootRank, getSize(), "reduce");
  Reduction r = reduction_for(t, opts.reduceOp, "reduce");
  // The root's tensor receives the result; elsewhere torch leaves it unspecified, so scaling
  // it in place is fine everywhere.
  premultiplied(t, r, /*in_place=*/true);
  const bool root = opts.rootRank == getRank();
  return launch_collective(c10d::OpType::REDUCE, "reduce", {t}, {},
                           nexar_call(nexar_reduce, nexar_ireduce, static_cast<const void *>(t.data_ptr()),
                                      root ? t.data_ptr() : nullptr, static_cast<size_t>(t.numel()), r.dtype, r.op,
                                      static_cast<int>(opts.rootRank), comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::_allgather_base(at::Tensor &output, at::Tensor &input,
                                                                  const c10d::AllgatherOptions &) {
  check_tensor(input, "_allgather_base");
  check_like({output}, input, input.numel() * getSize(), "_allgather_base (output)");
  Buffer in = bytes_of(input);
  return launch_collective(c10d::OpType::_ALLGATHER_BASE, "_allgather_base", {output}, {input},
                           nexar_call(nexar_allgather, nexar_iallgather, static_cast<const void *>(in.data),
                                      output.data_ptr(), in.count, NEXAR_UINT8, comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                                            std::vector<at::Tensor> &inputs,
                                                            const c10d::AllgatherOptions &) {
  const at::Tensor &in = single_tensor(inputs, "allgather");
  TORCH_CHECK(outputs.size() == 1 && static_cast<int>(outputs[0].size()) == getSize(),
              "nexar allgather: expects one list of ", getSize(), " output tensors");
  std::vector<at::Tensor> &list = outputs[0];
  check_like(list, in, in.numel(), "allgather (output)");
  at::Tensor flat = at::empty({in.numel() * getSize()}, in.options());
  Buffer b = bytes_of(in);
  auto work = launch_collective(c10d::OpType::ALLGATHER, "allgather", list, {in, flat},
                                nexar_call(nexar_allgather, nexar_iallgather, static_cast<const void *>(b.data),
                                           flat.data_ptr(), b.count, NEXAR_UINT8, comm()));
  work->on_success = [flat, list]() mutable { copy_out(flat, list); };
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::gather(std::vector<std::vector<at::Tensor>> &outputs,
                                                         std::vector<at::Tensor> &inputs,
                                                         const c10d::GatherOptions &opts) {
  const at::Tensor &in = single_tensor(inputs, "gather");
  check_root(opts.rootRank, getSize(), "gather");
  const bool root = opts.rootRank == getRank();
  std::vector<at::Tensor> list;
  at::Tensor flat;
  if (root) {
    TORCH_CHECK(outputs.size() == 1 && static_cast<int>(outputs[0].size()) == getSize(),
                "nexar gather: the root expects one list of ", getSize(), " output tensors");
    list = outputs[0];
    check_like(list, in, in.numel(), "gather (output)");
    flat = at::empty({in.numel() * getSize()}, in.options());
  } else {
    TORCH_CHECK(outputs.empty() || outputs[0].empty(), "nexar gather: only the root passes output tensors");
  }
  Buffer b = bytes_of(in);
  auto work = launch_collective(c10d::OpType::GATHER, "gather", list, {in, flat},
                                nexar_call(nexar_gather, nexar_igather, static_cast<const void *>(b.data),
                                           root ? flat.data_ptr() : nullptr, b.count, NEXAR_UINT8,
                                           static_cast<int>(opts.rootRank), comm()));
  if (root) work->on_success = [flat, list]() mutable { copy_out(flat, list); };
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::scatter(std::vector<at::Tensor> &outputs,
                                                          std::vector<std::vector<at::Tensor>> &inputs,
                                                          const c10d::ScatterOptions &opts) {
  const at::Tensor &out = single_tensor(outputs, "scatter");
  check_root(opts.rootRank, getSize(), "scatter");
  const bool root = opts.rootRank == getRank();
  at::Tensor flat;
  if (root) {
    TORCH_CHECK(inputs.size() == 1 && static_cast<int>(inputs[0].size()) == getSize(),
                "nexar scatter: the root expects one list of ", getSize(), " input tensors");
    check_like(inputs[0], out, out.numel(), "scatter (input)");
    flat = flattened(inputs[0]);
  } else {
    TORCH_CHECK(inputs.empty() || inputs[0].empty(), "nexar scatter: only the root passes input tensors");
  }
  Buffer b = bytes_of(out);
  return launch_collective(c10d::OpType::SCATTER, "scatter", {out}, {flat},
                           nexar_call(nexar_scatter, nexar_iscatter,
                                      static_cast<const void *>(root ? flat.data_ptr() : nullptr), b.data, b.count,
                                      NEXAR_UINT8, static_cast<int>(opts.rootRank), comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::_reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                                                       const c10d::ReduceScatterOptions &opts) {
  check_tensor(output, "_reduce_scatter_base");
  check_like({input}, output, output.numel() * getSize(), "_reduce_scatter_base (input)");
  Reduction r = reduction_for(input, opts.reduceOp, "_reduce_scatter_base");
  at::Tensor in = premultiplied(input, r, /*in_place=*/false);
  return launch_collective(
      c10d::OpType::_REDUCE_SCATTER_BASE, "_reduce_scatter_base", {output}, {in},
      nexar_call(nexar_reduce_scatter, nexar_ireduce_scatter, static_cast<const void *>(in.data_ptr()),
                 output.data_ptr(), static_cast<size_t>(output.numel()), r.dtype, r.op, comm()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::reduce_scatter(std::vector<at::Tensor> &outputs,
                                                                 std::vector<std::vector<at::Tensor>> &inputs,
                                                                 const c10d::ReduceScatterOptions &opts) {
  at::Tensor &out = const_cast<at::Tensor &>(single_tensor(outputs, "reduce_scatter"));
  TORCH_CHECK(inputs.size() == 1 && static_cast<int>(inputs[0].size()) == getSize(),
              "nexar reduce_scatter: expects one list of ", getSize(), " input tensors");
  check_like(inputs[0], out, out.numel(), "reduce_scatter (input)");
  at::Tensor flat = flattened(inputs[0]);
  return _reduce_scatter_base(out, flat, opts);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::alltoall_base(at::Tensor &output, at::Tensor &input,
                                                                std::vector<int64_t> &output_splits,
                                                                std::vector<int64_t> &input_splits,
                                                                const c10d::AllToAllOptions &) {
  check_tensor(input, "alltoall_base");
  check_like({output}, input, -1, "alltoall_base (output)");
  const int n = getSize();
  if (output_splits.empty() && input_splits.empty()) {
    TORCH_CHECK(input.numel() == output.numel() && input.numel() % n == 0, "nexar alltoall_base: input (",
                input.numel(), " elements) and output (", output.numel(),
                ") must be equal and divisible by the group size ", n, " without split sizes");
    Buffer in = bytes_of(input);
    return launch_collective(c10d::OpType::ALLTOALL_BASE, "alltoall_base", {output}, {input},
                             nexar_call(nexar_alltoall, nexar_ialltoall, static_cast<const void *>(in.data),
                                        output.data_ptr(), in.count / n, NEXAR_UINT8, comm()));
  }
  // Split sizes count rows (first dimension); none given on one side means equal rows.
  std::vector<size_t> send_bytes = split_bytes(input, input_splits, n, "input");
  std::vector<size_t> recv_bytes = split_bytes(output, output_splits, n, "output");
  return launch_alltoallv(input.data_ptr(), send_bytes, output.data_ptr(), recv_bytes, c10d::OpType::ALLTOALL_BASE,
                          "alltoall_base", {output}, {input});
}

c10::intrusive_ptr<NexarWork> ProcessGroupNexar::launch_alltoallv(const void *send, const std::vector<size_t> &send_bytes,
                                                                  void *recv, const std::vector<size_t> &recv_bytes,
                                                                  c10d::OpType type, const char *what,
                                                                  std::vector<at::Tensor> outputs,
                                                                  std::vector<at::Tensor> keep_alive) {
  // The counts and displacements live in the call (nexar reads them when it starts).
  return launch_collective(type, what, std::move(outputs), std::move(keep_alive),
                           [send, recv, sb = send_bytes, rb = recv_bytes, sd = displacements(send_bytes),
                            rd = displacements(recv_bytes), c = comm()](nexar_request_t *req) {
                             return req ? nexar_ialltoallv(send, sb.data(), sd.data(), recv, rb.data(), rd.data(),
                                                           NEXAR_UINT8, c, req)
                                        : nexar_alltoallv(send, sb.data(), sd.data(), recv, rb.data(), rd.data(),
                                                          NEXAR_UINT8, c);
                           });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupNexar::alltoall(std::vector<at::Tensor> &outputs,
                                                           std::vector<at::Tensor> &inputs,
                                                           const c10d::AllToAllOptions &) {
  const int n = getSize();
  TORCH_CHECK(static_cast<int>(inputs.size()) == n && static_cast<int>(outputs.size()) == n,
              "nexar alltoall: expects ", n, " input and ", n, " output tensors, got ", inputs.size(), " and ",
              outputs.size());
  TORCH_CHECK(n > 0, "nexar alltoall: empty group");
  check_like(inputs, inputs[0], -1, "alltoall (input)");
  check_like(outputs, inputs[0], -1, "alltoall (output)");
  // One buffer each way (nexar's all-to-all takes one), copied in before and out after.
  std::vector<size_t> send_bytes(n), recv_bytes(n);
  int64_t recv_elems = 0;
  for (int i = 0; i < n; ++i) {
    send_bytes[i] = inputs[i].nbytes();
    recv_bytes[i] = outputs[i].nbytes();
    recv_elems += outputs[i].numel();
  }
  at::Tensor send = flattened(inputs);
  at::Tensor recv = at::empty({recv_elems}, inputs[0].options());
  auto work = launch_alltoallv(send.data_ptr(), send_bytes, recv.data_ptr(), recv_bytes, c10d::OpType::ALLTOALL,
                               "alltoall", outputs, {send, recv});
  work->on_success = [recv, list = outputs]() mutable { copy_out(recv, list); };
  return work;
}

}  // namespace nexar_torch
