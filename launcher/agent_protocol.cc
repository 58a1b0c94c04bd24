// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/agent_protocol.h"

#include <unistd.h>

#include <cerrno>

namespace nexar::launcher::agent {

std::string escape(std::string_view raw) {
  static const char hex[] = "0123456789ABCDEF";
  if (raw.empty()) return std::string(1, '%');  // an empty field stays a field
  std::string out;
  out.reserve(raw.size());
  for (unsigned char c : raw) {
    if (c <= ' ' || c == '%' || c >= 0x7f) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

bool unescape(std::string_view text, std::string* raw) {
  raw->clear();
  if (text == "%") return true;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      *raw += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return false;
    int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
    if (hi < 0 || lo < 0) return false;
    *raw += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

std::string encode(const std::string& type, const std::string& target, const std::vector<std::string>& fields) {
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, falsely) on `" " + escape(f)`.
  std::string line = type;
  line += ' ';
  line += target;
  for (const std::string& f : fields) {
    line += ' ';
    line += escape(f);
  }
  line += '\n';
  return line;
}

bool decode(std::string_view line, Message* out) {
  *out = Message{};
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start <= line.size()) {
    size_t sp = line.find(' ', start);
    if (sp == std::string_view::npos) sp = line.size();
    words.push_back(line.substr(start, sp - start));
    start = sp + 1;
  }
  if (words.size() < 2 || words[0].empty() || words[1].empty()) return false;
  out->type = std::string(words[0]);
  out->target = std::string(words[1]);
  for (size_t i = 2; i < words.size(); ++i) {
    std::string raw;
    if (words[i].empty() || !unescape(words[i], &raw)) return false;
    out->fields.push_back(std::move(raw));
  }
  return true;
}

LineReader::Result LineReader::read(std::vector<std::string>* lines) {
  char buf[65536];
  for (int round = 0; round < 64; ++round) {
    ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return Result::MORE;
    if (n <= 0) return Result::END;
    pending_.append(buf, static_cast<size_t>(n));
    size_t start = 0, nl;
    while ((nl = pending_.find('\n', start)) != std::string::npos) {
      lines->emplace_back(pending_, start, nl - start);
      start = nl + 1;
    }
    pending_.erase(0, start);
    if (pending_.size() > kMaxLine) return Result::TOO_LONG;
  }
  return Result::MORE;
}

}  // namespace nexar::launcher::agent
