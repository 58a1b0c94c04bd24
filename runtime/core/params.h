// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Typed registry of NEXAR_* parameters (see params_table.h). Values are read from the
// environment once, on first use; a malformed value reads as the default (and
// check_environment() warns about it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nexar::params {

enum class Type { INT, DOUBLE, STRING, BOOL };

struct Def {
  const char* name;
  Type type;
  const char* default_value;
  const char* doc;
};

// Every parameter, in table order.
const std::vector<Def>& all();

int64_t get_int(const char* name);
double get_double(const char* name);
std::string get_string(const char* name);
// 0/1, true/false, yes/no, on/off in any case; a value that is none of them reads as the
// parameter's default (as the environment check says).
bool get_bool(const char* name);
// text as a boolean of the forms get_bool takes: false when it is none (*ok = false).
bool parse_bool(const std::string& text, bool* ok);
// True when the variable is set in the environment (even to the default).
bool is_set(const char* name);
// Current value as text (environment or default).
std::string value_text(const char* name);
// Log every set parameter under the ENV subsystem (once per process).
void log_set_params();
// Warns (NX_WARN, shown by default) about every NEXAR_* variable of the environment that
// is not a parameter, naming the nearest known name, and every value that does not parse
// as its parameter's type. Once per process (nexar_init and nexrun call it).
void check_environment();
// The warnings check_environment() prints for env ("NAME=value" entries).
std::vector<std::string> environment_problems(const std::vector<std::string>& env);
// The known parameter nearest to name (a typo of it), or "" when none is near.
std::string nearest_name(const std::string& name);
// Tests only: forget cached values so the next read sees the environment again.
void reload();
// Changes whenever reload() runs: code that caches values derived from parameters (hot
// paths such as collective selection) re-derives them when it changes.
uint64_t generation();

}  // namespace nexar::params
