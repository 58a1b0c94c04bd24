// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/kv_store.h"

#include "rendezvous/entries.h"

#include <charconv>
#include <iterator>
#include <vector>

namespace nexar::rendezvous {

bool parse_int64(const std::string& text, int64_t* out) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') {  // from_chars takes '-' but not '+'
    ++begin;
    if (begin != end && *begin == '-') return false;
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v, 10);
  if (ec != std::errc() || ptr != end) return false;
  *out = v;
  return true;
}

void KvStore::set(const std::string& key, std::string value) {
  const bool added = values_.insert_or_assign(key, std::move(value)).second;
  if (added) wake_gathers(key);
  wake(key);
}

void KvStore::erase(const std::string& key) {
  if (!values_.erase(key)) return;
  for (auto& [prefix, w] : by_prefix_)
    if (key.compare(0, prefix.size(), prefix) == 0) --w.present;
}

std::map<std::string, std::string>::const_iterator KvStore::end_of(const std::string& prefix) const {
  auto it = values_.lower_bound(prefix);
  while (it != values_.end() && it->first.compare(0, prefix.size(), prefix) == 0) ++it;
  return it;
}

size_t KvStore::count_prefix(const std::string& prefix) const {
  return static_cast<size_t>(std::distance(values_.lower_bound(prefix), end_of(prefix)));
}

std::string KvStore::entries_under(const std::string& prefix) const {
  return encode_entries(Entries(values_.lower_bound(prefix), end_of(prefix)));
}

KvStore::WaitId KvStore::gather(const std::string& prefix, size_t count, Clock::time_point deadline,
                                WaitCallback cb) {
  auto watch = by_prefix_.find(prefix);
  const size_t present = watch != by_prefix_.end() ? watch->second.present : count_prefix(prefix);
  if (present >= count) {
    cb(true, entries_under(prefix));
    return 0;
  }
  if (watch == by_prefix_.end()) watch = by_prefix_.emplace(prefix, PrefixWatch{present, {}}).first;
  WaitId id = next_id_++;
  waiters_.emplace(id, Waiter{prefix, deadline, std::move(cb), count, true});
  watch->second.by_count.emplace(count, id);
  by_deadline_.emplace(deadline, id);
  return id;
}

void KvStore::wake_gathers(const std::string& key) {
  std::vector<std::pair<std::string, WaitId>> due;
  for (auto& [prefix, w] : by_prefix_) {
    if (key.compare(0, prefix.size(), prefix) != 0) continue;
    ++w.present;
    for (auto it = w.by_count.begin(); it != w.by_count.end() && it->first <= w.present; ++it)
      due.emplace_back(prefix, it->second);
  }
  // Detach first, then call (a callback may touch the store); one body per prefix.
  std::vector<Waiter> taken;
  for (auto& [prefix, id] : due) taken.push_back(take(id));
  std::string body, body_prefix;
  for (Waiter& w : taken) {
    if (body.empty() || body_prefix != w.key) body = entries_under(w.key), body_prefix = w.key;
    w.cb(true, body);
  }
}

const std::string* KvStore::get(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

Status KvStore::add(const std::string& key, int64_t delta, int64_t* result) {
  int64_t current = 0;
  auto it = values_.find(key);
  if (it != values_.end() && !parse_int64(it->second, &current)) {
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("add: value of key '%s' is not a decimal integer", key.c_str()));
  }
  int64_t sum = 0;
  if (__builtin_add_overflow(current, delta, &sum)) {
    return Status(NEXAR_ERR_INVALID_ARGUMENT,
                  strprintf("add: %lld + %lld overflows key '%s'", static_cast<long long>(current),
                            static_cast<long long>(delta), key.c_str()));
  }
  const bool added = values_.insert_or_assign(key, std::to_string(sum)).second;
  *result = sum;
  if (added) wake_gathers(key);
  wake(key);
  return Status::Ok();
}

KvStore::WaitId KvStore::wait(const std::string& key, Clock::time_point deadline, WaitCallback cb) {
  if (const std::string* v = get(key)) {
    cb(true, *v);
    return 0;
  }
  WaitId id = next_id_++;
  waiters_.emplace(id, Waiter{key, deadline, std::move(cb)});
  by_key_.emplace(key, id);
  by_deadline_.emplace(deadline, id);
  return id;
}

KvStore::Waiter KvStore::take(WaitId id) {
  auto it = waiters_.find(id);
  Waiter w = std::move(it->second);
  waiters_.erase(it);
  if (w.gather) {
    auto watch = by_prefix_.find(w.key);
    for (auto [b, e] = watch->second.by_count.equal_range(w.count); b != e; ++b) {
      if (b->second == id) {
        watch->second.by_count.erase(b);
        break;
      }
    }
    if (watch->second.by_count.empty()) by_prefix_.erase(watch);
  }
  for (auto [b, e] = by_key_.equal_range(w.key); !w.gather && b != e; ++b) {
    if (b->second == id) {
      by_key_.erase(b);
      break;
    }
  }
  for (auto [b, e] = by_deadline_.equal_range(w.deadline); b != e; ++b) {
    if (b->second == id) {
      by_deadline_.erase(b);
      break;
    }
  }
  return w;
}

void KvStore::cancel(WaitId id) {
  if (waiters_.count(id)) take(id);
}

void KvStore::wake(const std::string& key) {
  // Detach first, then call: a callback may touch the store (set, wait, cancel).
  std::vector<WaitId> ids;
  for (auto [b, e] = by_key_.equal_range(key); b != e; ++b) ids.push_back(b->second);
  std::vector<Waiter> due;
  for (WaitId id : ids) due.push_back(take(id));
  for (Waiter& w : due) {
    // Read the value per call: an earlier callback may have changed it.
    const std::string* v = get(key);
    w.cb(v != nullptr, v ? *v : std::string());
  }
}

size_t KvStore::expire(Clock::time_point now) {
  std::vector<WaitId> ids;
  for (auto it = by_deadline_.begin(); it != by_deadline_.end() && it->first <= now; ++it) {
    ids.push_back(it->second);
  }
  std::vector<Waiter> due;
  for (WaitId id : ids) due.push_back(take(id));
  for (Waiter& w : due) w.cb(false, w.gather ? entries_under(w.key) : std::string());
  return due.size();
}

std::optional<KvStore::Clock::time_point> KvStore::next_deadline() const {
  if (by_deadline_.empty()) return std::nullopt;
  return by_deadline_.begin()->first;
}

}  // namespace nexar::rendezvous
