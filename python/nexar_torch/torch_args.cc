// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "nexar_torch/torch_args.h"

#include <c10/util/Exception.h>

namespace nexar_torch {

void check_tensor(const at::Tensor &t, const char *what) {
  TORCH_CHECK(t.defined(), "nexar ", what, ": tensor is undefined");
  TORCH_CHECK(t.layout() == at::kStrided, "nexar ", what, ": only dense tensors are supported, got layout ",
              t.layout());
  TORCH_CHECK(t.device().is_cpu(), "nexar ", what, ": only CPU tensors are supported by this build, got a tensor on ",
              t.device());
  TORCH_CHECK(t.is_contiguous(), "nexar ", what, ": tensor must be contiguous (sizes ", t.sizes(), ", strides ",
              t.strides(), ")");
}

const at::Tensor &single_tensor(const std::vector<at::Tensor> &tensors, const char *what) {
  TORCH_CHECK(tensors.size() == 1, "nexar ", what, ": expects exactly one tensor per call, got ", tensors.size());
  check_tensor(tensors[0], what);
  return tensors[0];
}

void check_like(const std::vector<at::Tensor> &list, const at::Tensor &like, int64_t count, const char *what) {
  for (size_t i = 0; i < list.size(); ++i) {
    check_tensor(list[i], what);
    TORCH_CHECK(list[i].scalar_type() == like.scalar_type(), "nexar ", what, ": tensor ", i, " has dtype ",
                list[i].scalar_type(), ", expected ", like.scalar_type());
    TORCH_CHECK(count < 0 || list[i].numel() == count, "nexar ", what, ": tensor ", i, " has ", list[i].numel(),
                " elements, expected ", count);
  }
}

Buffer bytes_of(const at::Tensor &t) {
  return Buffer{t.data_ptr(), static_cast<size_t>(t.nbytes()), NEXAR_UINT8};
}

namespace {

// nexar's dtype for reducing t, or none.
bool reduce_dtype(at::ScalarType s, nexar_dtype_t *out) {
  switch (s) {
    case at::kChar: *out = NEXAR_INT8; return true;
    case at::kByte: *out = NEXAR_UINT8; return true;
    case at::kBool: *out = NEXAR_UINT8; return true;  // 0/1 bytes; ops mapped below
    case at::kInt: *out = NEXAR_INT32; return true;
    case at::kLong: *out = NEXAR_INT64; return true;
    case at::kHalf: *out = NEXAR_FLOAT16; return true;
    case at::kBFloat16: *out = NEXAR_BFLOAT16; return true;
    case at::kFloat: *out = NEXAR_FLOAT32; return true;
    case at::kDouble: *out = NEXAR_FLOAT64; return true;
    default: return false;
  }
}

const char *op_name(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM: return "SUM";
    case c10d::ReduceOp::AVG: return "AVG";
    case c10d::ReduceOp::PRODUCT: return "PRODUCT";
    case c10d::ReduceOp::MIN: return "MIN";
    case c10d::ReduceOp::MAX: return "MAX";
    case c10d::ReduceOp::BAND: return "BAND";
    case c10d::ReduceOp::BOR: return "BOR";
    case c10d::ReduceOp::BXOR: return "BXOR";
    case c10d::ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
    default: return "UNKNOWN";
  }
}

}  // namespace

Reduction reduction_for(const at::Tensor &t, const c10d::ReduceOp &op, const char *what) {
  Reduction r;
  TORCH_CHECK(reduce_dtype(t.scalar_type(), &r.dtype), "nexar ", what, ": cannot reduce dtype ", t.scalar_type(),
              " (nexar reduces int8, uint8, bool, int32, int64, float16, bfloat16, float32, float64)");
  const bool is_bool = t.scalar_type() == at::kBool;
  switch (op.op_) {
    case c10d::ReduceOp::SUM: r.op = is_bool ? NEXAR_MAX : NEXAR_SUM; return r;  // bool: logical or
    case c10d::ReduceOp::PRODUCT: r.op = is_bool ? NEXAR_MIN : NEXAR_PROD; return r;  // bool: logical and
    case c10d::ReduceOp::MIN: r.op = NEXAR_MIN; return r;
    case c10d::ReduceOp::MAX: r.op = NEXAR_MAX; return r;
    case c10d::ReduceOp::AVG:
      TORCH_CHECK(!is_bool, "nexar ", what, ": ReduceOp.AVG is undefined for bool tensors");
      r.op = NEXAR_AVG;
      return r;
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR:
      // Bitwise: integers and bool (0/1 bytes) only, as gloo. On bool, and/or stay min/max.
      TORCH_CHECK(at::isIntegralType(t.scalar_type(), /*includeBool=*/true), "nexar ", what, ": ReduceOp.",
                  op_name(op.op_), " is bitwise: it takes integer and bool tensors only, got dtype ", t.scalar_type());
      if (op.op_ == c10d::ReduceOp::BXOR) r.op = NEXAR_BXOR;
      else if (op.op_ == c10d::ReduceOp::BAND) r.op = is_bool ? NEXAR_MIN : NEXAR_BAND;
      else r.op = is_bool ? NEXAR_MAX : NEXAR_BOR;
      return r;
    case c10d::ReduceOp::PREMUL_SUM: {
      TORCH_CHECK(!is_bool, "nexar ", what, ": ReduceOp.PREMUL_SUM is undefined for bool tensors");
      auto *sup = dynamic_cast<c10d::NCCLPreMulSumSupplement *>(op.supplement_.get());
      TORCH_CHECK(sup != nullptr, "nexar ", what, ": ReduceOp.PREMUL_SUM without its factor");
      r.op = NEXAR_SUM;
      r.premul = true;
      r.factor = sup->double_factor;
      if (!sup->tensor_factors.empty()) r.factor_tensor = sup->tensor_factors[0];
      return r;
    }
    default:
      TORCH_CHECK(false, "nexar ", what, ": ReduceOp.", op_name(op.op_),
                  " is not supported (nexar reduces with SUM, AVG, PRODUCT, MIN, MAX, PREMUL_SUM, BAND, BOR, BXOR)");
  }
}

at::Tensor premultiplied(const at::Tensor &t, const Reduction &r, bool in_place) {
  if (!r.premul) return t;
  if (r.factor_tensor.defined()) {
    at::Tensor f = r.factor_tensor.to(t.device(), t.scalar_type());
    return in_place ? t.mul_(f) : t.mul(f);
  }
  return in_place ? t.mul_(r.factor) : t.mul(r.factor);
}

std::string failure_text(const char *what, nexar_result_t rc, const char *detail) {
  std::string s = std::string("nexar ") + what + " failed: " + nexar_result_string(rc);
  if (detail != nullptr && *detail != '\0') s += std::string(": ") + detail;
  return s;
}

}  // namespace nexar_torch
