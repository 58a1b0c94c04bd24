// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar_allreduce_compressed: each rank contributes k = ceil(ratio * count) elements of
// v = send + residual (top-k or random-k), every rank sums every contribution, and what a
// rank did not contribute stays in its residual (error feedback). Contributions travel in
// one allgather (collectives/compress_codec.h), so each is added exactly once, in rank
// order, on every rank; ratio 1 is nexar_allreduce itself.
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/api_state.h"
#include "collectives/compress_codec.h"
#include "collectives/compress_select.h"
#include "core/dtype.h"

using nexar::Status;
using nexar::api::finish;
namespace cz = nexar::coll::compress;

namespace {

Status check_args(const void* sendbuf, const void* recvbuf, size_t count, nexar_dtype_t dtype,
                  const nexar_compress_t* spec, const void* residual, nexar_comm_t comm) {
  NX_RETURN_IF_ERROR(nexar::api::check_comm(comm));
  if (!spec) return Status(NEXAR_ERR_INVALID_ARGUMENT, "compression spec is NULL");
  if (spec->method != NEXAR_COMPRESS_TOPK && spec->method != NEXAR_COMPRESS_RANDOMK)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("unknown compression method %d", static_cast<int>(spec->method)));
  if (!(spec->ratio > 0 && spec->ratio <= 1))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("compression ratio %g is outside (0, 1]", spec->ratio));
  if (!cz::dtype_supported(dtype))
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  nexar::strprintf("dtype %s: the compressed allreduce takes float32, float64, float16 and bfloat16",
                                   nexar::dtype_name(dtype)));
  if (count > UINT32_MAX)
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("count %zu is above the compressed allreduce's limit of %u",
                                                               count, UINT32_MAX));
  if (count > 0 && (!sendbuf || !recvbuf || !residual))
    return Status(NEXAR_ERR_INVALID_ARGUMENT, nexar::strprintf("%s is NULL with count %zu",
                                                               !sendbuf ? "sendbuf" : !recvbuf ? "recvbuf" : "residual", count));
  return Status::Ok();
}

}  // namespace

extern "C" {

NEXAR_API nexar_result_t nexar_allreduce_compressed(const void* sendbuf, void* recvbuf, size_t count,
                                                    nexar_dtype_t dtype, const nexar_compress_t* spec, void* residual,
                                                    nexar_comm_t comm) {
  Status st = check_args(sendbuf, recvbuf, count, dtype, spec, residual, comm);
  if (!st.ok()) return finish(comm, st.with_context("allreduce_compressed"));
  const size_t e = nexar::dtype_size(dtype);
  const size_t k = cz::contributed(spec->ratio, count);
  std::vector<uint8_t> v(count * e);
  if (count > 0) cz::add_residual(sendbuf, residual, v.data(), count, dtype);
  if (k == count) {  // everything: the plain allreduce, and nothing left behind
    nexar_result_t r = nexar_allreduce(v.data(), recvbuf, count, dtype, NEXAR_SUM, comm);
    if (r == NEXAR_SUCCESS && count > 0) std::memset(residual, 0, count * e);
    return r;
  }
  const std::vector<uint32_t> idx =
      spec->method == NEXAR_COMPRESS_TOPK ? cz::top_k(v.data(), count, dtype, k) : cz::random_k(spec->seed, count, k);
  const cz::Head head{cz::kHeadMagic, static_cast<uint32_t>(spec->method), static_cast<uint32_t>(dtype), 0,
                      count, k, spec->method == NEXAR_COMPRESS_RANDOMK ? spec->seed : 0};
  const size_t per_rank = cz::packed_bytes(spec->method, k, dtype);
  std::vector<uint8_t> mine(per_rank);
  cz::pack(head, idx, v.data(), dtype, mine.data());
  auto& c = *comm->comm;
  std::vector<uint8_t> all(per_rank * static_cast<size_t>(c.size()));
  nexar_result_t r = nexar_allgather(mine.data(), all.data(), per_rank, NEXAR_UINT8, comm);
  if (r != NEXAR_SUCCESS) return r;
  st = cz::sum_contributions(head, c.rank(), all.data(), c.size(), per_rank, idx, recvbuf);
  if (!st.ok()) return finish(comm, c.fail(st));
  cz::leave_residual(v.data(), idx, residual, count, dtype);
  return NEXAR_SUCCESS;
}

}  // extern "C"
