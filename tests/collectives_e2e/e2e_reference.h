// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The end-to-end tests' own model of the reductions, written from the API's contract and
// sharing no code with the library: element values, op application per dtype (integers
// wrap, float16/bfloat16 round to nearest even from the exact result), AVG, identities,
// and the per-rank input data (distinct per rank and element).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nexar/nexar.h"

namespace e2e {

using Bytes = std::vector<unsigned char>;

extern const nexar_dtype_t kDtypes[10];
extern const nexar_op_t kOps[5];         // the arithmetic ops, on every dtype
extern const nexar_op_t kBitwiseOps[3];  // BAND, BOR, BXOR, on the integer dtypes

size_t dtype_bytes(nexar_dtype_t d);
const char* dtype_str(nexar_dtype_t d);
const char* op_str(nexar_op_t op);
bool is_float(nexar_dtype_t d);

// float16 / bfloat16 <-> double, rounding to nearest even (overflow to inf).
double half_bits_to_double(uint16_t h);
uint16_t double_to_half_bits(double v);
double bf16_bits_to_double(uint16_t b);
uint16_t double_to_bf16_bits(double v);

// How input data is chosen. EXACT: every partial reduction over <= 16 ranks is exact in
// the type (small integers as floats; +-2^e for products; integers anything, they wrap),
// so any association order gives the reference's bits. RANDOM: arbitrary values whose
// sums round (used where the order cannot matter: two ranks, or bit identity only).
enum class DataKind { EXACT, RANDOM };

// count elements of rank's input starting at global element index `first`.
Bytes make_input(int rank, size_t first, size_t count, nexar_dtype_t d, nexar_op_t op, DataKind kind,
                 uint32_t seed = 0);
// Raw bytes for collectives that only move data (any bit pattern, NaNs included).
Bytes make_bytes(int rank, int block, size_t nbytes, uint32_t seed = 0);

// acc[i] = op(acc[i], x[i]) for count elements (no AVG division). Bitwise ops: integers only.
void combine(unsigned char* acc, const unsigned char* x, size_t count, nexar_dtype_t d, nexar_op_t op);
// AVG: divide each element by n (integers toward zero, 16-bit floats rounded once).
void finish_avg(unsigned char* buf, size_t count, nexar_dtype_t d, nexar_op_t op, size_t n);
// op's identity, count times.
Bytes identity(size_t count, nexar_dtype_t d, nexar_op_t op);

// Ranks lo..hi-1 of make_input folded in rank order, AVG divided by hi - lo.
Bytes reference(int lo, int hi, size_t first, size_t count, nexar_dtype_t d, nexar_op_t op, DataKind kind,
                uint32_t seed = 0);

// "" when equal, else where they first differ (bytes and elements).
std::string first_difference(const unsigned char* got, const unsigned char* want, size_t nbytes, size_t elem);

uint64_t hash_bytes(const unsigned char* p, size_t n);

}  // namespace e2e
