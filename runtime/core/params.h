// Typed registry of NEXAR_* parameters (see params_table.h). Values are read from the
// environment once, on first use; a malformed value is a WARN and the default is used.
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
bool get_bool(const char* name);
// True when the variable is set in the environment (even to the default).
bool is_set(const char* name);
// Current value as text (environment or default).
std::string value_text(const char* name);
// Log every set parameter under the ENV subsystem (once per process).
void log_set_params();
// Tests only: forget cached values so the next read sees the environment again.
void reload();
// Changes whenever reload() runs: code that caches values derived from parameters (hot
// paths such as collective selection) re-derives them when it changes.
uint64_t generation();

}  // namespace nexar::params
