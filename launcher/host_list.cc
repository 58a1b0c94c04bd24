#include "launcher/host_list.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

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

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
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
  std::stringstream ss(text);
  std::string token;
  bool any = false;
  while (std::getline(ss, token, ',')) {
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

Status expand_slurm_hostlist(const std::string& text, std::vector<std::string>* names) {
  // Split at commas outside brackets, then expand "prefix[ranges]suffix" (one bracket).
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) return Status(NEXAR_ERR_INVALID_ARGUMENT, "unbalanced brackets in hostlist '" + text + "'");
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return Status(NEXAR_ERR_INVALID_ARGUMENT, "unbalanced brackets in hostlist '" + text + "'");
  items.push_back(cur);
  for (const std::string& item : items) {
    if (item.empty()) return Status(NEXAR_ERR_INVALID_ARGUMENT, "empty name in hostlist '" + text + "'");
    size_t open = item.find('[');
    if (open == std::string::npos) {
      names->push_back(item);
      continue;
    }
    size_t close = item.find(']', open);
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    std::stringstream ranges(item.substr(open + 1, close - open - 1));
    std::string range;
    while (std::getline(ranges, range, ',')) {
      size_t dash = range.find('-');
      const std::string lo_s = range.substr(0, dash);
      const std::string hi_s = dash == std::string::npos ? lo_s : range.substr(dash + 1);
      long lo = 0, hi = 0;
      bool ok = !lo_s.empty() && !hi_s.empty() && lo_s.find_first_not_of("0123456789") == std::string::npos &&
                hi_s.find_first_not_of("0123456789") == std::string::npos;
      if (ok) {
        lo = std::strtol(lo_s.c_str(), nullptr, 10);
        hi = std::strtol(hi_s.c_str(), nullptr, 10);
        ok = lo <= hi && hi - lo < 100000;
      }
      if (!ok) return Status(NEXAR_ERR_INVALID_ARGUMENT, "bad range '" + range + "' in hostlist '" + text + "'");
      const int width = static_cast<int>(lo_s.size());  // n[01-04]: zero padded to 2
      for (long i = lo; i <= hi; ++i) names->push_back(prefix + strprintf("%0*ld", width, i) + suffix);
    }
  }
  return Status::Ok();
}

Status expand_slurm_tasks_per_node(const std::string& text, std::vector<int>* counts) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    long n = 0, repeat = 1;
    size_t paren = item.find('(');
    std::string count = item.substr(0, paren);
    bool ok = parse_count(count, kMaxSlots, &n);
    if (ok && paren != std::string::npos) {
      ok = item.size() > paren + 3 && item.compare(paren, 2, "(x") == 0 && item.back() == ')' &&
           parse_count(item.substr(paren + 2, item.size() - paren - 3), 100000, &repeat);
    }
    if (!ok) return Status(NEXAR_ERR_INVALID_ARGUMENT, "bad item '" + item + "' in SLURM_TASKS_PER_NODE '" + text + "'");
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
