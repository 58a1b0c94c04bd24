// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A Python buffer (numpy array, bytearray, array.array, memoryview...) as libnexar sees it:
// its address, its element count and nexar dtype from the buffer's format, contiguous or
// refused. Each refusal is a ValueError / TypeError naming the argument and what is wrong.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "nexar/nexar.h"

namespace nexar_py {

namespace py = pybind11;

struct View {
  py::buffer_info info;  // holds the exporter's buffer until the call returns
  void* data = nullptr;
  size_t bytes = 0;
  size_t count = 0;       // elements of dtype
  nexar_dtype_t dtype = NEXAR_UINT8;
  bool typed = false;     // the format names a numeric type nexar has (else: raw bytes)
};

// What a call needs of a buffer: read only or written, and whether it must be typed
// (a reduction needs numbers; moving data does not: an untyped buffer moves as bytes).
enum class Access { READ, WRITE };

// The view of obj for argument `what` of `call` ("Allreduce", "recvbuf"). Raises
// TypeError (no buffer protocol), ValueError (not C-contiguous, read-only for WRITE).
View view_of(const py::handle& obj, Access access, const char* call, const char* what);

// Raises TypeError unless v's format is a numeric type nexar reduces.
void require_typed(const View& v, const char* call, const char* what);

// Raises ValueError unless a and b have the same element type: "recvbuf holds float64,
// sendbuf float32".
void require_same_type(const View& a, const char* a_what, const View& b, const char* b_what, const char* call);

}  // namespace nexar_py
