// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Test helper: sets NEXAR_ALGO (or unsets it: nullptr) and reloads the parameters, as a
// program's environment change would be seen after params::reload.
#pragma once

#include <stdlib.h>

#include "core/params.h"

namespace nexar::test {

inline void set_algo(const char* value) {
  if (value)
    setenv("NEXAR_ALGO", value, 1);
  else
    unsetenv("NEXAR_ALGO");
  params::reload();
}

}  // namespace nexar::test
