// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Torch's arguments in nexar's terms: dtypes, reduce ops, and the checks every operation of
// the backend makes on its tensors before anything is sent. A check that fails throws a
// c10::Error (RuntimeError in Python) naming the operation, the argument and its value.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <nexar/nexar.h>

#include <vector>

namespace nexar_torch {

// A tensor as nexar moves it: data pointer and bytes (element type does not matter to
// broadcast, gather, all-to-all or point to point), or elements of a nexar dtype for a reduction.
struct Buffer {
  void *data = nullptr;
  size_t count = 0;
  nexar_dtype_t dtype = NEXAR_UINT8;
};

// A reduction as nexar runs it: the op, the dtype, and a factor to scale the input by first
// (PREMUL_SUM; 1.0 otherwise).
struct Reduction {
  nexar_op_t op = NEXAR_SUM;
  nexar_dtype_t dtype = NEXAR_FLOAT32;
  bool premul = false;
  double factor = 1.0;
  at::Tensor factor_tensor;  // PREMUL_SUM with a tensor factor
};

// The one dense, contiguous CPU tensor of a vector (torch passes vectors for multi-device calls).
const at::Tensor &single_tensor(const std::vector<at::Tensor> &tensors, const char *what);
// Throws unless t is a dense, contiguous CPU tensor.
void check_tensor(const at::Tensor &t, const char *what);
// Throws unless every tensor of list has like's dtype and element count (count < 0: any count).
void check_like(const std::vector<at::Tensor> &list, const at::Tensor &like, int64_t count, const char *what);

// t's bytes, for operations that only move data.
Buffer bytes_of(const at::Tensor &t);
// How nexar reduces t with op; throws for a dtype or op nexar cannot reduce, naming both.
Reduction reduction_for(const at::Tensor &t, const c10d::ReduceOp &op, const char *what);
// t scaled by the PREMUL_SUM factor: in place when allowed, else a scaled copy.
at::Tensor premultiplied(const at::Tensor &t, const Reduction &r, bool in_place);

// The text of a nexar failure: "nexar <what> failed: NEXAR_ERR_X: <detail>".
std::string failure_text(const char *what, nexar_result_t rc, const char *detail);

}  // namespace nexar_torch
