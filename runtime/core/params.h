// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Typed registry of NEXAR_* parameters (see params_table.h, the one list of them): a
// handle per parameter in namespace nexar::param (param::NEXAR_SHM_STAGE_MAX.get()).
// Values are read from the environment and parsed once, on first use; a malformed value
// reads as the default (and check_environment() warns about it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/params_table.h"

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

// Every parameter's value, parsed from the environment once (on first use; again only
// after reload()). A value that does not parse as its type reads as the default (and
// check_environment() warns, naming it).
struct Value {
  bool set = false;        // the variable is in the environment (even set to the default)
  bool malformed = false;  // set, but not a value of the parameter's type
  std::string text;        // as set, else the default
  int64_t i = 0;           // INT
  double d = 0;            // DOUBLE
  bool b = false;          // BOOL
};
enum class Index : uint16_t {
#define NX_PARAM_INDEX(name, type, dflt, doc) name,
  NEXAR_PARAMS(NX_PARAM_INDEX)
#undef NX_PARAM_INDEX
  kCount
};
struct Snapshot {
  Value values[static_cast<size_t>(Index::kCount)];
};
namespace detail {
extern std::atomic<const Snapshot*> g_snapshot;
const Snapshot& load();
}  // namespace detail
// The current values: after the first call, one atomic load.
inline const Snapshot& current() {
  const Snapshot* s = detail::g_snapshot.load(std::memory_order_acquire);
  return s ? *s : detail::load();
}
// The value of all()[i].
inline const Value& value_at(size_t i) { return current().values[i]; }

// A typed handle of one parameter: param::NEXAR_TIMEOUT.get() is a double. Generated from
// params_table.h below, so a misspelt name does not compile.
template <Type T>
class Param {
 public:
  constexpr explicit Param(Index i) : i_(i) {}
  decltype(auto) get() const {
    const Value& v = value();
    if constexpr (T == Type::INT) return v.i;
    else if constexpr (T == Type::DOUBLE) return v.d;
    else if constexpr (T == Type::BOOL) return v.b;
    else return (v.text);  // a const std::string&, valid for the process's life
  }
  bool is_set() const { return value().set; }
  const char* name() const { return all()[static_cast<size_t>(i_)].name; }
  const char* default_text() const { return all()[static_cast<size_t>(i_)].default_value; }

 private:
  const Value& value() const { return current().values[static_cast<size_t>(i_)]; }
  Index i_;
};

// text as a boolean of the forms BOOL parameters take (0/1, true/false, yes/no, on/off in
// any case): false when it is none (*ok = false).
bool parse_bool(const std::string& text, bool* ok);
// Whether text is a value of type.
bool parses_as(Type type, const std::string& text);
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
// Forget the parsed values so the next read sees the environment again (tests, and nexrun
// after it set variables of its own). Values read before stay valid (never freed).
void reload();
// Changes whenever reload() runs: code that caches values derived from parameters (hot
// paths such as collective selection) re-derives them when it changes. One load, inline.
namespace detail {
extern std::atomic<uint64_t> g_generation;
}  // namespace detail
inline uint64_t generation() { return detail::g_generation.load(std::memory_order_acquire); }

}  // namespace nexar::params

namespace nexar::param {
#define NX_PARAM_HANDLE(name, type, dflt, doc) \
  inline constexpr params::Param<params::Type::type> name{params::Index::name};
NEXAR_PARAMS(NX_PARAM_HANDLE)
#undef NX_PARAM_HANDLE
}  // namespace nexar::param
