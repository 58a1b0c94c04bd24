// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/json_value.h"

#include <cmath>
#include <cstdlib>

#include "core/status.h"

namespace nexar::launcher {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  bool document(JsonValue* out, std::string* error) {
    bool ok = value(out, 0);
    skip_space();
    if (ok && pos_ != s_.size()) ok = fail("text after the document");
    if (!ok) *error = strprintf("offset %zu: %s", pos_, error_.c_str());
    return ok;
  }

 private:
  bool fail(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0) return fail("unknown literal");
    pos_ += n;
    return true;
  }

  bool value(JsonValue* v, int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    skip_space();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v->kind = JsonValue::Kind::STRING;
      return string(&v->string);
    }
    if (c == 't' || c == 'f') {
      v->kind = JsonValue::Kind::BOOL;
      v->boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return literal("null");
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    v->number = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(v->number)) return fail("expected a value");
    v->kind = JsonValue::Kind::NUMBER;
    pos_ += static_cast<size_t>(end - begin);
    return true;
  }

  bool object(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::OBJECT;
    ++pos_;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    for (;;) {
      skip_space();
      JsonMember member;
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
      if (!string(&member.name)) return false;
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      if (!value(&member.value, depth + 1)) return false;
      v->object.push_back(std::move(member));
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      return fail("expected ',' or '}'");
    }
  }

  bool array(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::ARRAY;
    ++pos_;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    for (;;) {
      v->array.emplace_back();
      if (!value(&v->array.back(), depth + 1)) return false;
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      return fail("expected ',' or ']'");
    }
  }

  // UTF-8 of a \u escape (surrogate pairs are kept as two replacement-free code units).
  static void append_utf8(std::string* out, unsigned cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool string(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': *out += e; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return fail("short \\u escape");
          char* end = nullptr;
          const std::string hex = s_.substr(pos_, 4);
          const unsigned long cp = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) return fail("bad \\u escape");
          append_utf8(out, static_cast<unsigned>(cp));
          pos_ += 4;
          break;
        }
        default: return fail("unknown escape");
      }
    }
    return fail("unterminated string");
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const JsonValue& JsonValue::operator[](const std::string& key) const {
  static const JsonValue null;
  for (const JsonMember& m : object)
    if (m.name == key) return m.value;
  return null;
}

int64_t JsonValue::integer(int64_t fallback) const {
  return kind == Kind::NUMBER ? static_cast<int64_t>(std::llround(number)) : fallback;
}

std::string JsonValue::text(const std::string& fallback) const { return kind == Kind::STRING ? string : fallback; }

bool parse_json(const std::string& text, JsonValue* out, std::string* error) {
  *out = JsonValue();
  return Parser(text).document(out, error);
}

}  // namespace nexar::launcher
