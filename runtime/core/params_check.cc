// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The environment checked against the parameter registry: a NEXAR_* name that is not a
// parameter (a typo; the nearest known name is suggested) and a value that does not parse
// as its parameter's type are warned about, once per process, at the default log level.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/log.h"
#include "core/params.h"
#include "core/status.h"

extern char** environ;

namespace nexar::params {
namespace {

// Names of the NEXAR_ prefix that are not runtime parameters: the build's and the test
// harness's own variables, which ranks started by tests inherit.
bool is_foreign(const std::string& name) {
  return name.rfind("NEXAR_TEST_", 0) == 0 || name == "NEXAR_SANITIZE";
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

const char* type_name(Type type) {
  switch (type) {
    case Type::INT: return "an integer";
    case Type::DOUBLE: return "a number";
    case Type::BOOL: return "a boolean (0/1, true/false, yes/no, on/off, in any case)";
    case Type::STRING: return "text";
  }
  return "";
}

}  // namespace

std::string nearest_name(const std::string& name) {
  std::string best;
  size_t best_d = name.size();
  for (const Def& d : all()) {
    // The distance is at least the difference in length: skip names that cannot qualify
    // (a long NEXAR_* name from the environment otherwise costs len^2 per parameter).
    const size_t len = std::strlen(d.name);
    const size_t diff = len > name.size() ? len - name.size() : name.size() - len;
    if (diff >= best_d || diff * 3 > name.size()) continue;
    const size_t dist = edit_distance(name, d.name);
    if (dist < best_d) best_d = dist, best = d.name;
  }
  // More than a third of the name changed: not a typo of it.
  return best_d * 3 <= name.size() ? best : "";
}

std::vector<std::string> environment_problems(const std::vector<std::string>& env) {
  std::vector<std::string> out;
  for (const std::string& kv : env) {
    if (kv.rfind("NEXAR_", 0) != 0) continue;
    const size_t eq = kv.find('=');
    const std::string name = kv.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (is_foreign(name)) continue;
    const auto& defs = all();
    auto def = std::find_if(defs.begin(), defs.end(), [&](const Def& d) { return name == d.name; });
    if (def == defs.end()) {
      const std::string near = nearest_name(name);
      out.push_back(name + " is not a nexar parameter" +
                    (near.empty() ? std::string(" (nexar-info lists them)") : "; did you mean " + near + "?"));
    } else if (!parses_as(def->type, value)) {
      out.push_back(strprintf("%s=%s is not %s; the default %s is used", name.c_str(), value.c_str(),
                              type_name(def->type), def->default_value));
    }
  }
  return out;
}

void check_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    for (const std::string& problem : environment_problems(env)) NX_WARN(ENV, "%s", problem.c_str());
  });
}

}  // namespace nexar::params
