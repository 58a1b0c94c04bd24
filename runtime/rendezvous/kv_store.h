// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The rendezvous key-value store: values by key, an atomic add counter, and waiters that
// are completed when their key is set or their deadline passes. Not thread-safe by
// design: the server owns it on the endpoint's progress thread, so nothing here blocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/status.h"

namespace nexar::rendezvous {

class KvStore {
 public:
  using Clock = std::chrono::steady_clock;
  using WaitId = uint64_t;
  // found: the key was set (value is its value); else the deadline passed (value empty).
  using WaitCallback = std::function<void(bool found, const std::string& value)>;

  // Stores value under key and completes every waiter of key (after the store is updated).
  void set(const std::string& key, std::string value);

  // Forgets key (its waiters keep waiting).
  void erase(const std::string& key);

  // The value of key, or nullptr. Valid until the next change of the store.
  const std::string* get(const std::string& key) const;

  // Adds delta to the decimal integer stored under key (absent: 0), stores the result as
  // decimal text and completes waiters of key. NEXAR_ERR_INVALID_ARGUMENT when the stored
  // value is not a decimal integer or the sum overflows int64 (the store is unchanged).
  Status add(const std::string& key, int64_t delta, int64_t* result);

  // Waits for key until deadline. If key is present, cb runs at once (found) and 0 is
  // returned; else cb runs later from set()/add() or expire(), exactly once, unless the
  // returned id is cancelled first.
  WaitId wait(const std::string& key, Clock::time_point deadline, WaitCallback cb);

  // Waits until at least count keys start with prefix, or until deadline. cb gets found =
  // whether count was reached, and value = every key under prefix with its value then
  // (encode_entries, entries.h). At once (returning 0) when count is already reached; else
  // later from set()/add() or expire(), exactly once, unless the id is cancelled first.
  // One request instead of one per key: a world's N ranks read the N addresses with N
  // requests, not N^2.
  WaitId gather(const std::string& prefix, size_t count, Clock::time_point deadline, WaitCallback cb);

  // Forgets a waiter (its callback never runs). Unknown or completed ids are ignored.
  void cancel(WaitId id);

  // Completes (not found) every waiter whose deadline is <= now; returns how many.
  size_t expire(Clock::time_point now);

  // The earliest deadline of a pending waiter.
  std::optional<Clock::time_point> next_deadline() const;

  size_t key_count() const { return values_.size(); }
  size_t waiter_count() const { return waiters_.size(); }

 private:
  struct Waiter {
    std::string key;  // a gather's: its prefix
    Clock::time_point deadline;
    WaitCallback cb;
    size_t count = 0;  // a gather's: the number of keys it waits for
    bool gather = false;
  };
  // The gathers waiting on one prefix, and how many keys the store holds under it (kept
  // while any waits, so that a set costs one comparison per watched prefix).
  struct PrefixWatch {
    size_t present = 0;
    std::multimap<size_t, WaitId> by_count;
  };
  // Removes a waiter from every index and returns it.
  Waiter take(WaitId id);
  void wake(const std::string& key);
  // A new key: gathers on its prefixes that now have their count complete.
  void wake_gathers(const std::string& key);
  // Past the last key that starts with prefix (keys under it follow lower_bound(prefix)).
  std::map<std::string, std::string>::const_iterator end_of(const std::string& prefix) const;
  size_t count_prefix(const std::string& prefix) const;
  std::string entries_under(const std::string& prefix) const;

  std::map<std::string, std::string> values_;
  std::unordered_map<WaitId, Waiter> waiters_;
  std::multimap<std::string, WaitId> by_key_;
  std::multimap<Clock::time_point, WaitId> by_deadline_;
  std::map<std::string, PrefixWatch> by_prefix_;
  WaitId next_id_ = 1;
};

// Parses a whole decimal int64 ("-12", "+3", "0"); no spaces, no empty string, no overflow.
bool parse_int64(const std::string& text, int64_t* out);

}  // namespace nexar::rendezvous
