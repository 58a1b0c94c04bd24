// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One testbed per test program, made on first use with n hosts and removed at exit; tests
// call it first and return when it is null (a WARN says why: not root, no namespaces).
// Include after <catch.hpp>.
#pragma once

#include <string>

#include "multihost/netns_testbed.h"

namespace multihost_test {

inline NetnsTestbed* shared_testbed(int n) {
  static NetnsTestbed bed;
  static bool tried = false, ok = false;
  static std::string why;
  if (!tried) {
    tried = true;
    ok = NetnsTestbed::available(&why) && bed.up(n, &why);
    if (!ok) bed.down();
  }
  if (!ok) WARN("skipped: " << why);
  return ok ? &bed : nullptr;
}

}  // namespace multihost_test
