// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_* values and names as the environment check reads them: lines of "NAME=value"
// (the check names every problem, never crashes), and every value parsed as each type.
#include <sstream>

#include "core/params.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = nexar::fuzz::text_of(data, size);
  std::vector<std::string> env;
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) env.push_back(line);
  (void)nexar::params::environment_problems(env);
  bool ok = false;
  const bool v = nexar::params::parse_bool(text, &ok);
  nexar::fuzz::require(ok || !v, "a malformed boolean reads false");
  (void)nexar::params::nearest_name(text.substr(0, 256));
  return 0;
}
