// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The comma lists' one reading: empty pieces kept (callers refuse or skip them by name),
// an empty text no pieces, trimming of spaces, tabs, CR and LF at both ends only.
#include <catch.hpp>

#include "core/text.h"

using nexar::split;
using nexar::trim;
using V = std::vector<std::string>;

TEST_CASE("split keeps every piece, empty ones too", "[unit]") {
  CHECK(split("", ',') == V{});
  CHECK(split("a", ',') == V{"a"});
  CHECK(split("a,b,c", ',') == V{"a", "b", "c"});
  CHECK(split("a,,b", ',') == V{"a", "", "b"});
  CHECK(split("a,", ',') == V{"a", ""});
  CHECK(split(",a", ',') == V{"", "a"});
  CHECK(split(",", ',') == V{"", ""});
  CHECK(split(" a , b ", ',') == V{" a ", " b "});
  CHECK(split("x:y,z", ':') == V{"x", "y,z"});
}

TEST_CASE("trim strips spaces, tabs, CR and LF at both ends only", "[unit]") {
  CHECK(trim("") == "");
  CHECK(trim(" \t\r\n") == "");
  CHECK(trim("a") == "a");
  CHECK(trim(" \ta b\r\n") == "a b");
  CHECK(trim("42\n") == "42");
  CHECK(trim("\n42") == "42");
}
