// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "trace/json_out.h"

#include <cmath>
#include <cstdio>

#include "core/json_escape.h"

namespace nexar::trace {

void JsonOut::comma() {
  if (need_comma_) s_ += ',';
  need_comma_ = true;
}

void JsonOut::open(char c) {
  comma();
  s_ += c;
  need_comma_ = false;
}

void JsonOut::close(char c) {
  s_ += c;
  need_comma_ = true;
}

void JsonOut::key(const char* name) {
  comma();
  s_ += '"';
  s_ += json_escape(name);
  s_ += "\":";
  need_comma_ = false;
}

void JsonOut::value(const std::string& v) {
  comma();
  s_ += '"';
  s_ += json_escape(v);
  s_ += '"';
}

void JsonOut::value(int64_t v) {
  comma();
  s_ += std::to_string(v);
}

void JsonOut::value(uint64_t v) {
  comma();
  s_ += std::to_string(v);
}

void JsonOut::value(double v) {
  comma();
  if (!std::isfinite(v)) v = 0;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  s_ += buf;
}

void JsonOut::value_ints(const std::vector<int>& v) {
  begin_array();
  for (int x : v) value(x);
  end_array();
}

}  // namespace nexar::trace
