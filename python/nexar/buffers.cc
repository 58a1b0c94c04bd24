// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "buffers.h"

#include "core/dtype.h"

namespace nexar_py {
namespace {

// The buffer format's one type code ('f', 'q'...) with a native or little-endian prefix
// taken off; 0 for anything else (structs, big-endian, several fields).
char type_code(const std::string& format) {
  std::string f = format;
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) f.erase(0, 1);
  return f.size() == 1 ? f[0] : 0;
}

// nexar's dtype for a type code of the given item size; false when nexar has none.
bool dtype_of(char code, size_t itemsize, nexar_dtype_t* out) {
  const bool is_signed = code == 'b' || code == 'h' || code == 'i' || code == 'l' || code == 'q' || code == 'n';
  const bool is_unsigned = code == 'B' || code == 'H' || code == 'I' || code == 'L' || code == 'Q' || code == 'N';
  if (is_signed || is_unsigned) {
    switch (itemsize) {
      case 1: *out = is_signed ? NEXAR_INT8 : NEXAR_UINT8; return true;
      case 4: *out = is_signed ? NEXAR_INT32 : NEXAR_UINT32; return true;
      case 8: *out = is_signed ? NEXAR_INT64 : NEXAR_UINT64; return true;
      default: return false;  // 16-bit integers: nexar has none
    }
  }
  if (code == 'e' && itemsize == 2) return *out = NEXAR_FLOAT16, true;
  if (code == 'f' && itemsize == 4) return *out = NEXAR_FLOAT32, true;
  if (code == 'd' && itemsize == 8) return *out = NEXAR_FLOAT64, true;
  return false;
}

bool c_contiguous(const py::buffer_info& b) {
  py::ssize_t expect = b.itemsize;
  for (py::ssize_t i = b.ndim - 1; i >= 0; --i) {
    const auto k = static_cast<size_t>(i);
    if (b.shape[k] != 1 && b.strides[k] != expect) return false;
    expect *= b.shape[k];
  }
  return true;
}

[[noreturn]] void raise(PyObject* type, const std::string& text) {
  PyErr_SetString(type, text.c_str());
  throw py::error_already_set();
}

}  // namespace

View view_of(const py::handle& obj, Access access, const char* call, const char* what) {
  const std::string where = std::string(call) + ": " + what;
  if (obj.is_none()) raise(PyExc_ValueError, where + " is None (a buffer is needed here)");
  if (!PyObject_CheckBuffer(obj.ptr()))
    raise(PyExc_TypeError, where + " is a " + std::string(Py_TYPE(obj.ptr())->tp_name) +
                               ", not a buffer (numpy array, bytearray, array.array, memoryview)");
  View v;
  try {
    v.info = py::reinterpret_borrow<py::buffer>(obj).request(access == Access::WRITE);
  } catch (py::error_already_set& e) {
    raise(PyExc_ValueError, where + (access == Access::WRITE ? " is not writable: " : ": ") + e.what());
  }
  if (!c_contiguous(v.info)) raise(PyExc_ValueError, where + " is not C-contiguous (pass a contiguous copy)");
  v.data = v.info.ptr;
  v.bytes = static_cast<size_t>(v.info.size * v.info.itemsize);
  v.typed = dtype_of(type_code(v.info.format), static_cast<size_t>(v.info.itemsize), &v.dtype);
  if (v.typed) {
    v.count = static_cast<size_t>(v.info.size);
  } else {
    v.dtype = NEXAR_UINT8;
    v.count = v.bytes;
  }
  return v;
}

void require_typed(const View& v, const char* call, const char* what) {
  if (v.typed) return;
  raise(PyExc_TypeError, std::string(call) + ": " + what + " has format '" + v.info.format + "' (item size " +
                             std::to_string(v.info.itemsize) +
                             "), not a type nexar reduces: int8, uint8, int32, uint32, int64, uint64, float16, "
                             "float32, float64");
}

void require_same_type(const View& a, const char* a_what, const View& b, const char* b_what, const char* call) {
  if (a.typed == b.typed && a.dtype == b.dtype) return;
  raise(PyExc_ValueError, std::string(call) + ": " + a_what + " holds " + (a.typed ? nexar::dtype_name(a.dtype) : "bytes") +
                              ", " + b_what + " " + (b.typed ? nexar::dtype_name(b.dtype) : "bytes"));
}

}  // namespace nexar_py
