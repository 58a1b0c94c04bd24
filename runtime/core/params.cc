// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/params.h"

#include <strings.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "core/log.h"
#include "core/params_table.h"

namespace nexar::params {
namespace {

struct Entry {
  Def def;
  bool set = false;
  std::string text;
};

struct Registry {
  std::mutex mu;
  bool loaded = false;
  std::unordered_map<std::string, Entry> entries;
  std::vector<Def> defs;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;
#define NX_PARAM_DEF(name, type, dflt, doc) reg->defs.push_back(Def{#name, Type::type, dflt, doc});
    NEXAR_PARAMS(NX_PARAM_DEF)
#undef NX_PARAM_DEF
    return reg;
  }();
  return *r;
}

const Entry& lookup(const char* name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.loaded) {
    r.entries.clear();
    for (const Def& d : r.defs) {
      Entry e{d, false, d.default_value};
      if (const char* v = std::getenv(d.name)) {
        e.set = true;
        e.text = v;
      }
      r.entries.emplace(d.name, e);
    }
    r.loaded = true;
  }
  auto it = r.entries.find(name);
  if (it == r.entries.end()) {
    // A programming error: every parameter must be in params_table.h.
    std::fprintf(stderr, "nexar: internal error: unknown parameter %s\n", name);
    std::abort();
  }
  return it->second;
}

}  // namespace

const std::vector<Def>& all() { return registry().defs; }

bool is_set(const char* name) { return lookup(name).set; }
std::string value_text(const char* name) { return lookup(name).text; }
std::string get_string(const char* name) { return lookup(name).text; }

int64_t get_int(const char* name) {
  const Entry& e = lookup(name);
  char* end = nullptr;
  long long v = std::strtoll(e.text.c_str(), &end, 0);
  if (end == e.text.c_str() || *end != '\0') return std::strtoll(e.def.default_value, nullptr, 0);
  return v;
}

double get_double(const char* name) {
  const Entry& e = lookup(name);
  char* end = nullptr;
  double v = std::strtod(e.text.c_str(), &end);
  if (end == e.text.c_str() || *end != '\0') return std::strtod(e.def.default_value, nullptr);
  return v;
}

bool parse_bool(const std::string& text, bool* ok) {
  static const struct {
    const char* word;
    bool value;
  } forms[] = {{"1", true},  {"true", true},   {"yes", true}, {"on", true},
               {"0", false}, {"false", false}, {"no", false}, {"off", false}};
  for (const auto& f : forms)
    if (strcasecmp(text.c_str(), f.word) == 0) {
      *ok = true;
      return f.value;
    }
  *ok = false;
  return false;
}

bool get_bool(const char* name) {
  const Entry& e = lookup(name);
  bool ok = false;
  const bool v = parse_bool(e.text, &ok);
  return ok ? v : parse_bool(e.def.default_value, &ok);
}

void log_set_params() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Def& d : all())
      if (is_set(d.name)) NX_INFO(ENV, "%s set by environment to %s", d.name, value_text(d.name).c_str());
  });
}

namespace {
std::atomic<uint64_t> g_generation{0};
}

void reload() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.loaded = false;
  ++g_generation;
}

uint64_t generation() { return g_generation.load(std::memory_order_acquire); }

}  // namespace nexar::params
