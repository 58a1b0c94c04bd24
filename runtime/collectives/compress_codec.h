// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The data side of a compressed allreduce (nexar_allreduce_compressed) for the floating
// dtypes (float32, float64, float16, bfloat16; the 16-bit ones in float32 arithmetic):
// v = send + residual, a rank's contribution packed for the allgather, the sum of every
// rank's contribution, and the residual left behind.
//
// A rank's packed contribution: Head, then (top-k only) k uint32 indices, then the k
// values at those indices, in the dtype. Random-k sends no indices: every rank draws the
// same ones from the head's seed, which the receivers check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "nexar/nexar.h"

namespace nexar::coll::compress {

// Whether dtype is one the compressed allreduce takes.
bool dtype_supported(nexar_dtype_t dtype);

// v[i] = send[i] + residual[i] in dtype's arithmetic; send[i]'s bits where residual[i] is
// zero (so a zero residual changes nothing, not even a negative zero).
void add_residual(const void* send, const void* residual, void* v, size_t count, nexar_dtype_t dtype);

// |v[i]| for top-k: into *f32 (float32, float16, bfloat16) or *f64 (float64); NaN is +inf.
void magnitudes(const void* v, size_t count, nexar_dtype_t dtype, std::vector<float>* f32, std::vector<double>* f64);

struct Head {
  uint32_t magic;
  uint32_t method;  // nexar_compress_method_t
  uint32_t dtype;
  uint32_t pad;
  uint64_t count;
  uint64_t k;
  uint64_t seed;  // random-k's draw
};
inline constexpr uint32_t kHeadMagic = 0x4e58435a;  // "NXCZ"

// Bytes of one rank's packed contribution.
size_t packed_bytes(nexar_compress_method_t method, size_t k, nexar_dtype_t dtype);
// Packs v at idx (ascending) into out (packed_bytes long).
void pack(const Head& head, const std::vector<uint32_t>& idx, const void* v, nexar_dtype_t dtype, uint8_t* out);

// Sums the contributions of nranks ranks (all: each packed_bytes long, in rank order) into
// recv (count elements), each rank's added in rank order, so every rank gets the same bits.
// mine: this rank's head; idx: the random-k indices (unused for top-k). A rank whose head
// differs (method, dtype, count, ratio, seed): NEXAR_ERR_MISMATCH naming both ranks and what.
Status sum_contributions(const Head& mine, int my_rank, const uint8_t* all, int nranks, size_t per_rank,
                         const std::vector<uint32_t>& idx, void* recv);

// The residual left: v with the contributed elements (idx) set to zero.
void leave_residual(const void* v, const std::vector<uint32_t>& idx, void* residual, size_t count, nexar_dtype_t dtype);

}  // namespace nexar::coll::compress
