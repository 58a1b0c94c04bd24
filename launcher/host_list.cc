// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/host_list.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/text.h"

namespace nexar::launcher {
namespace {

constexpr long kMaxSlots = 4096;

bool parse_count(const std::string& s, long max, long* out) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  *out = std::strtol(s.c_str(), nullptr, 10);
  return *out >= 1 && *out <= max;
}

void add_host(std::vector<HostSlots>* hosts, const std::string& name, int slots) {
  for (HostSlots& h : *hosts)
    if (h.name == name) {
      h.slots += slots;
      return;
    }
  hosts->push_back({name, slots});
}

// "host" or "host:N" (an IPv6 literal in brackets: "[fd00::1]:2").
Status parse_host_token(const std::string& token, std::string* name, int* slots) {
  *slots = 1;
  *name = token;
  size_t colon = token.rfind(':');
  size_t bracket = token.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    long n = 0;
    if (!parse_count(token.substr(colon + 1), kMaxSlots, &n))
      return Status(NEXAR_ERR_INVALID_ARGUMENT, "host '" + token + "': slots after ':' must be 1..4096");
    *slots = static_cast<int>(n);
    *name = token.substr(0, colon);
  }
  if (name->size() > 2 && name->front() == '[' && name->back() == ']') *name = name->substr(1, name->size() - 2);
  if (name->empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "empty host name in '" + token + "'");
  for (char c : *name)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '{' || c == '}')
      return Status(NEXAR_ERR_INVALID_ARGUMENT, "host name '" + *name + "' contains a character not allowed");
  return Status::Ok();
}

}  // namespace

Status parse_host_option(const std::string& text, std::vector<HostSlots>* hosts) {
  bool any = false;
  for (std::string token : split(text, ',')) {
    token = trim(token);
    if (token.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "empty host in -H '" + text + "'");
    std::string name;
    int slots = 1;
    NX_RETURN_IF_ERROR(parse_host_token(token, &name, &slots));
    add_host(hosts, name, slots);
    any = true;
  }
  if (!any) return Status(NEXAR_ERR_INVALID_ARGUMENT, "-H without hosts");
  return Status::Ok();
}

Status parse_hostfile_text(const std::string& text, std::vector<HostSlots>* hosts) {
  std::stringstream lines(text);
  std::string line;
  int lineno = 0;
  while (std::getline(lines, line)) {
    ++lineno;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::stringstream words(line);
    std::string first, word;
    words >> first;
    std::string name;
    int slots = 1;
    Status s = parse_host_token(first, &name, &slots);
    if (!s.ok()) return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("line %d: %s", lineno, s.message().c_str()));
    while (words >> word) {
      long n = 0;
      if (word.rfind("slots=", 0) == 0) {
        if (!parse_count(word.substr(6), kMaxSlots, &n))
          return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("line %d: '%s': slots must be 1..4096", lineno, word.c_str()));
        slots = static_cast<int>(n);
      } else if (word.rfind("max_slots=", 0) == 0) {
        if (!parse_count(word.substr(10), kMaxSlots, &n))
          return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("line %d: '%s': max_slots must be 1..4096", lineno, word.c_str()));
      } else {
        return Status(NEXAR_ERR_INVALID_ARGUMENT,
                      strprintf("line %d: unknown word '%s' (expected slots=N or max_slots=N)", lineno, word.c_str()));
      }
    }
    add_host(hosts, name, slots);
  }
  if (hosts->empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "no hosts in the hostfile");
  return Status::Ok();
}

Status read_hostfile(const std::string& path, std::vector<HostSlots>* hosts) {
  std::ifstream f(path);
  if (!f) return Status(NEXAR_ERR_INVALID_ARGUMENT, "cannot read hostfile " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_hostfile_text(ss.str(), hosts).with_context("hostfile " + path);
}

namespace {

constexpr size_t kMaxHostName = 255;

Status bad_hostlist(const std::string& what, const std::string& text) {
  return Status(NEXAR_ERR_INVALID_ARGUMENT, what + " in hostlist '" + text + "'");
}

// The values of one bracket group's inside, "01-04,07" -> 01 02 03 04 07; at most limit.
Status bracket_values(const std::string& inside, size_t limit, const std::string& text,
                      std::vector<std::string>* values) {
  for (const std::string& range : split(inside, ',')) {
    const size_t dash = range.find('-');
    const std::string lo_s = range.substr(0, dash);
    const std::string hi_s = dash == std::string::npos ? lo_s : range.substr(dash + 1);
    auto number = [](const std::string& s) {  // at most 9 digits: no overflow below
      return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    long lo = 0, hi = 0;
    bool ok = number(lo_s) && number(hi_s);
    if (ok) {
      lo = std::strtol(lo_s.c_str(), nullptr, 10);
      hi = std::strtol(hi_s.c_str(), nullptr, 10);
      ok = lo <= hi;
    }
    if (!ok) return bad_hostlist("bad range '" + range + "'", text);
    if (static_cast<size_t>(hi - lo) + 1 > limit - values->size())  // values->size() <= limit
      return bad_hostlist(strprintf("more than %zu names", kMaxSlurmNames), text);
    const int width = static_cast<int>(lo_s.size());  // n[01-04]: zero padded to 2
    for (long i = lo; i <= hi; ++i) values->push_back(strprintf("%0*ld", width, i));
  }
  if (values->empty()) return bad_hostlist("empty brackets", text);
  return Status::Ok();
}

// Appends the names of one comma-free item: its text with each bracket group replaced by
// one of its values, every combination, the leftmost group slowest (an odometer). The
// product of the groups' sizes is bounded before any name is made.
Status expand_item(const std::string& item, const std::string& text, std::vector<std::string>* names) {
  std::vector<std::string> texts;                // texts[g] before group g; the last after all
  std::vector<std::vector<std::string>> groups;  // each group's values
  size_t combinations = 1, pos = 0;
  const size_t room = kMaxSlurmNames - names->size();
  for (size_t open; (open = item.find('[', pos)) != std::string::npos;) {
    const size_t close = item.find(']', open);  // balanced and not nested (checked)
    texts.push_back(item.substr(pos, open - pos));
    groups.emplace_back();
    NX_RETURN_IF_ERROR(bracket_values(item.substr(open + 1, close - open - 1), room / combinations, text,
                                      &groups.back()));
    combinations *= groups.back().size();  // <= room
    pos = close + 1;
  }
  texts.push_back(item.substr(pos));
  if (combinations > room) return bad_hostlist(strprintf("more than %zu names", kMaxSlurmNames), text);
  std::vector<size_t> at(groups.size(), 0);
  for (size_t n = 0; n < combinations; ++n) {
    std::string name = texts[0];
    for (size_t g = 0; g < groups.size(); ++g) name += groups[g][at[g]] + texts[g + 1];
    if (name.size() > kMaxHostName) return bad_hostlist("a name longer than 255 characters", text);
    names->push_back(std::move(name));
    for (size_t g = groups.size(); g-- > 0;) {  // the rightmost group turns fastest
      if (++at[g] < groups[g].size()) break;
      at[g] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

Status expand_slurm_hostlist(const std::string& text, std::vector<std::string>* names) {
  // Split at commas outside brackets, then expand each item's bracket groups.
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) return bad_hostlist("unbalanced brackets", text);
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return bad_hostlist("unbalanced brackets", text);
  items.push_back(cur);
  for (const std::string& item : items) {
    if (item.empty()) return bad_hostlist("empty name", text);
    NX_RETURN_IF_ERROR(expand_item(item, text, names));
  }
  return Status::Ok();
}

Status expand_slurm_tasks_per_node(const std::string& text, std::vector<int>* counts) {
  for (const std::string& item : split(text, ',')) {
    long n = 0, repeat = 1;
    size_t paren = item.find('(');
    std::string count = item.substr(0, paren);
    bool ok = parse_count(count, kMaxSlots, &n);
    if (ok && paren != std::string::npos) {
      ok = item.size() > paren + 3 && item.compare(paren, 2, "(x") == 0 && item.back() == ')' &&
           parse_count(item.substr(paren + 2, item.size() - paren - 3), 100000, &repeat);
    }
    if (!ok) return Status(NEXAR_ERR_INVALID_ARGUMENT, "bad item '" + item + "' in SLURM_TASKS_PER_NODE '" + text + "'");
    if (static_cast<size_t>(repeat) > kMaxSlurmNames - counts->size())
      return Status(NEXAR_ERR_INVALID_ARGUMENT,
                    strprintf("SLURM_TASKS_PER_NODE '%s' names more than %zu hosts", text.c_str(), kMaxSlurmNames));
    for (long i = 0; i < repeat; ++i) counts->push_back(static_cast<int>(n));
  }
  if (counts->empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "empty SLURM_TASKS_PER_NODE");
  return Status::Ok();
}

bool is_local_host(const std::string& name) {
  if (name == "localhost" || name == "127.0.0.1" || name == "::1") return true;
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) return false;
  std::string h = host;
  return name == h || name == h.substr(0, h.find('.'));
}

}  // namespace nexar::launcher
