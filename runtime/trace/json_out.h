// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A small JSON writer for snapshots and trace files: appends to a string, puts the commas,
// escapes strings. Only what the recorder writes: objects, arrays, strings and numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nexar::trace {

class JsonOut {
 public:
  std::string& text() { return s_; }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // "name": (the value comes with the next call)
  void key(const char* name);
  void value(const std::string& v);
  void value(const char* v) { value(std::string(v)); }
  void value(int64_t v);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(uint64_t v);
  void value(double v);  // finite; written with enough digits for microseconds
  void value_ints(const std::vector<int>& v);

  template <class T>
  void field(const char* name, const T& v) {
    key(name);
    value(v);
  }

 private:
  void open(char c);
  void close(char c);
  void comma();
  std::string s_;
  bool need_comma_ = false;
};

}  // namespace nexar::trace
