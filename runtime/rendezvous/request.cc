// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/request.h"

#include "rendezvous/kv_store.h"

namespace nexar::rendezvous {
namespace {

constexpr std::string_view kKvPrefix = "/kv/";
constexpr std::string_view kAddPrefix = "/add/";
constexpr std::string_view kStatusPath = "/status";
constexpr std::string_view kAllPrefix = "/all/";

bool key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '/' || c == '-';
}

// Text safe to echo in a one-line message: printable ASCII, cut to a sane length.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 64) out += "...";
  return out;
}

Status invalid(const std::string& why) { return Status(NEXAR_ERR_INVALID_ARGUMENT, why); }

Status parse_wait_query(std::string_view query, std::chrono::milliseconds* out) {
  constexpr std::string_view kWait = "wait=";
  if (query.substr(0, kWait.size()) != kWait) {
    return invalid("unknown query '" + printable(query) + "' (only wait=<ms> is accepted)");
  }
  std::string digits(query.substr(kWait.size()));
  int64_t ms = 0;
  if (digits.empty() || digits.size() > 20 || digits[0] == '+' || digits[0] == '-' ||
      !parse_int64(digits, &ms)) {
    return invalid("wait=" + printable(digits) + " is not a decimal number of milliseconds");
  }
  if (ms > kMaxWaitMs) {
    return invalid(strprintf("wait=%lld exceeds the limit of %lld ms", static_cast<long long>(ms),
                             static_cast<long long>(kMaxWaitMs)));
  }
  *out = std::chrono::milliseconds(ms);
  return Status::Ok();
}

// GET /all/<prefix>?count=<n>&wait=<ms>
Status parse_gather(std::string_view method, std::string_view rest, std::string_view body, Request* out) {
  if (method != "GET") return invalid("method " + printable(method) + " not allowed on /all/ (GET)");
  if (!body.empty()) return invalid("GET /all/ takes no body");
  const size_t q = rest.find('?');
  const std::string_view prefix = rest.substr(0, q);
  std::string why;
  if (!valid_key(prefix, &why)) return invalid(why);
  out->key = std::string(prefix);
  constexpr std::string_view kCount = "count=";
  const std::string_view query = q == std::string_view::npos ? std::string_view() : rest.substr(q + 1);
  const size_t amp = query.find('&');
  if (query.substr(0, kCount.size()) != kCount || amp == std::string_view::npos)
    return invalid("/all/ takes the query count=<n>&wait=<ms>, not '" + printable(query) + "'");
  const std::string digits(query.substr(kCount.size(), amp - kCount.size()));
  if (digits.empty() || digits[0] == '+' || digits[0] == '-' || !parse_int64(digits, &out->count) ||
      out->count > (1 << 24))
    return invalid("count=" + printable(digits) + " is not a number of keys (0 to 16777216)");
  out->op = Op::kGather;
  return parse_wait_query(query.substr(amp + 1), &out->wait);
}

Status parse_kv(std::string_view method, std::string_view rest, std::string_view body,
                bool body_overflow, Request* out) {
  std::string_view key = rest;
  std::string_view query;
  bool has_query = false;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    key = rest.substr(0, q);
    query = rest.substr(q + 1);
    has_query = true;
  }
  std::string why;
  if (!valid_key(key, &why)) return invalid(why);
  out->key = std::string(key);
  if (method == "GET") {
    if (!body.empty()) return invalid("GET /kv/ takes no body");
    if (!has_query) {
      out->op = Op::kGet;
      return Status::Ok();
    }
    out->op = Op::kWait;
    return parse_wait_query(query, &out->wait);
  }
  if (method == "PUT") {
    if (has_query) return invalid("PUT /kv/ takes no query");
    if (body_overflow || body.size() > kMaxValueSize) {
      return invalid(strprintf("value of key '%s' exceeds the limit of %zu bytes", out->key.c_str(),
                               kMaxValueSize));
    }
    out->op = Op::kSet;
    out->value = std::string(body);
    return Status::Ok();
  }
  return invalid("method " + printable(method) + " not allowed on /kv/ (GET or PUT)");
}

Status parse_add(std::string_view method, std::string_view key, std::string_view body,
                 bool body_overflow, Request* out) {
  if (method != "POST") return invalid("method " + printable(method) + " not allowed on /add/ (POST)");
  std::string why;
  if (!valid_key(key, &why)) return invalid(why);
  out->key = std::string(key);
  if (body_overflow || body.size() > kMaxDeltaLength) return invalid("add: delta is too long");
  if (!parse_int64(std::string(body), &out->delta)) {
    return invalid("add: delta '" + printable(body) + "' is not a decimal int64");
  }
  out->op = Op::kAdd;
  return Status::Ok();
}

}  // namespace

Response bad_request(const std::string& why) {
  Response r;
  r.status = 400;
  r.body = why + "\n";
  return r;
}

bool valid_key(std::string_view key, std::string* why) {
  if (key.empty()) {
    *why = "empty key";
    return false;
  }
  if (key.size() > kMaxKeyLength) {
    *why = strprintf("key of %zu bytes exceeds the limit of %zu", key.size(), kMaxKeyLength);
    return false;
  }
  for (size_t i = 0; i < key.size(); ++i) {
    if (!key_char(key[i])) {
      *why = strprintf("key '%s' has a character outside [A-Za-z0-9._/-] at offset %zu",
                       printable(key).c_str(), i);
      return false;
    }
  }
  return true;
}

Status parse_request(std::string_view method, std::string_view path, std::string_view body,
                     bool body_overflow, Request* out) {
  *out = Request();
  if (path.substr(0, kKvPrefix.size()) == kKvPrefix) {
    return parse_kv(method, path.substr(kKvPrefix.size()), body, body_overflow, out);
  }
  if (path.substr(0, kAddPrefix.size()) == kAddPrefix) {
    return parse_add(method, path.substr(kAddPrefix.size()), body, body_overflow, out);
  }
  if (path.substr(0, kAllPrefix.size()) == kAllPrefix) return parse_gather(method, path.substr(kAllPrefix.size()), body, out);
  if (path == kStatusPath) {
    if (method != "GET") return invalid("method " + printable(method) + " not allowed on /status (GET)");
    out->op = Op::kStatus;
    return Status::Ok();
  }
  return invalid("unknown path '" + printable(path) + "' (/kv/<key>, /add/<key>, /all/<prefix> or /status)");
}

RequestLine request_line(const Request& r) {
  switch (r.op) {
    case Op::kSet: return {"PUT", std::string(kKvPrefix) + r.key};
    case Op::kGet: return {"GET", std::string(kKvPrefix) + r.key};
    case Op::kWait:
      return {"GET", std::string(kKvPrefix) + r.key + "?wait=" + std::to_string(r.wait.count())};
    case Op::kAdd: return {"POST", std::string(kAddPrefix) + r.key};
    case Op::kStatus: return {"GET", std::string(kStatusPath)};
    case Op::kGather:
      return {"GET", std::string(kAllPrefix) + r.key + "?count=" + std::to_string(r.count) +
                         "&wait=" + std::to_string(r.wait.count())};
  }
  return {"GET", std::string(kStatusPath)};
}

const char* op_name(Op op) {
  switch (op) {
    case Op::kSet: return "set";
    case Op::kGet: return "get";
    case Op::kWait: return "wait";
    case Op::kAdd: return "add";
    case Op::kStatus: return "status";
    case Op::kGather: return "gather";
  }
  return "?";
}

}  // namespace nexar::rendezvous
