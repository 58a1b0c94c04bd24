// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar-info: what this build of nexar is and every NEXAR_* parameter it reads, with its
// type, default, current value and meaning (the registry of runtime/core/params_table.h),
// and the collective algorithms NEXAR_ALGO can force, with when each applies and its cost.
#include <cstdio>
#include <cstring>

#include "collectives/algo_table.h"
#include "core/params.h"
#include "nexar/nexar.h"

namespace {
const char* type_name(nexar::params::Type t) {
  switch (t) {
    case nexar::params::Type::INT: return "int";
    case nexar::params::Type::DOUBLE: return "double";
    case nexar::params::Type::STRING: return "string";
    case nexar::params::Type::BOOL: return "bool";
  }
  return "?";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
    std::printf("usage: nexar-info\nPrints nexar's version, every NEXAR_* parameter and the collective algorithms.\n");
    return 0;
  }
  std::printf("nexar %s\n\nParameters (environment variables):\n", nexar_version());
  std::printf("%-26s %-7s %-12s %-12s %s\n", "name", "type", "default", "value", "meaning");
  const auto& defs = nexar::params::all();
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto& d = defs[i];
    const auto& v = nexar::params::value_at(i);
    std::printf("%-26s %-7s %-12s %-12s %s\n", d.name, type_name(d.type), *d.default_value ? d.default_value : "\"\"",
                v.set ? v.text.c_str() : "-", d.doc);
  }
  std::printf("\nCollective algorithms (NEXAR_ALGO=collective:algorithm,...; otherwise the cheapest by the cost model):\n%s",
              nexar::coll::describe_algorithms().c_str());
  return 0;
}
