// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A small JSON reader for the records ranks send nexrun (hang reports, /status): the
// whole document into a tree of values. Depth and size are bounded by the caller's input
// (records are at most 1 MiB); malformed text is an error naming the offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nexar::launcher {

struct JsonMember;

struct JsonValue {
  enum class Kind { NUL, BOOL, NUMBER, STRING, ARRAY, OBJECT } kind = Kind::NUL;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<JsonMember> object;  // in document order

  // The member named key; a null value when absent or this is not an object.
  const JsonValue& operator[](const std::string& key) const;
  bool is_null() const { return kind == Kind::NUL; }
  // The number as an integer, or fallback when this is not a number.
  int64_t integer(int64_t fallback = -1) const;
  // The string, or fallback when this is not a string.
  std::string text(const std::string& fallback = "") const;
};

struct JsonMember {
  std::string name;
  JsonValue value;
};

// Parses a whole document. False with *error ("offset N: what") when text is not JSON.
bool parse_json(const std::string& text, JsonValue* out, std::string* error);

}  // namespace nexar::launcher
