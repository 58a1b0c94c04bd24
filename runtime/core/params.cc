// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "core/params.h"

#include <strings.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/log.h"

namespace nexar::params {
namespace detail {
std::atomic<const Snapshot*> g_snapshot{nullptr};
std::atomic<uint64_t> g_generation{0};
}  // namespace detail

namespace {

struct Loader {
  std::mutex mu;
  // Every snapshot ever parsed: a reader may hold a reference into an old one.
  std::vector<std::unique_ptr<Snapshot>> kept;
};

Loader& loader() {
  static Loader* l = new Loader;  // never destroyed: read until the process exits
  return *l;
}

bool parse_int(const std::string& text, int64_t* v) {
  char* end = nullptr;
  *v = std::strtoll(text.c_str(), &end, 0);
  return !text.empty() && *end == '\0';
}

bool parse_double(const std::string& text, double* v) {
  char* end = nullptr;
  *v = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// Parses text as a value of type into v; false when it is none.
bool parse_as(Type type, const std::string& text, Value* v) {
  bool ok = true;
  switch (type) {
    case Type::INT: return parse_int(text, &v->i);
    case Type::DOUBLE: return parse_double(text, &v->d);
    case Type::BOOL: v->b = parse_bool(text, &ok); return ok;
    case Type::STRING: return true;
  }
  return true;
}

Value read(const Def& d) {
  Value v;
  v.text = d.default_value;
  (void)parse_as(d.type, v.text, &v);  // the defaults parse (params_test checks them)
  if (const char* env = std::getenv(d.name)) {
    v.set = true;
    v.text = env;
    Value parsed = v;
    if (parse_as(d.type, v.text, &parsed)) v = parsed;
    else v.malformed = true;  // keeps the default's value
  }
  return v;
}

}  // namespace

bool parses_as(Type type, const std::string& text) {
  Value v;
  return parse_as(type, text, &v);
}

const std::vector<Def>& all() {
  static const std::vector<Def>* defs = new std::vector<Def>{
#define NX_PARAM_DEF(name, type, dflt, doc) Def{#name, Type::type, dflt, doc},
      NEXAR_PARAMS(NX_PARAM_DEF)
#undef NX_PARAM_DEF
  };
  return *defs;
}

const Snapshot& detail::load() {
  Loader& l = loader();
  std::lock_guard<std::mutex> lock(l.mu);
  if (const Snapshot* s = g_snapshot.load(std::memory_order_acquire)) return *s;  // another thread won
  auto s = std::make_unique<Snapshot>();
  const std::vector<Def>& defs = all();
  for (size_t i = 0; i < defs.size(); ++i) s->values[i] = read(defs[i]);
  const Snapshot* out = s.get();
  l.kept.push_back(std::move(s));
  g_snapshot.store(out, std::memory_order_release);
  return *out;
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

void log_set_params() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::vector<Def>& defs = all();
    for (size_t i = 0; i < defs.size(); ++i)
      if (value_at(i).set) NX_INFO(ENV, "%s set by environment to %s", defs[i].name, value_at(i).text.c_str());
  });
}

void reload() {
  Loader& l = loader();
  std::lock_guard<std::mutex> lock(l.mu);
  detail::g_snapshot.store(nullptr, std::memory_order_release);
  detail::g_generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace nexar::params
