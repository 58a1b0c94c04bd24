// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A collective call's two words: what the flight recorder keeps of it (coll_desc) and the
// descriptor every member compares (pack_descriptor). Both read only the call's kind,
// count, dtype, op and root and the communicator's size, so a communicator keeps the last
// words per kind and derives them again only for a call of another shape. Used only by the
// thread running the communicator's collective (one at a time), so it needs no lock.
#pragma once

#include <array>
#include <cstdint>

#include "collectives/collective.h"
#include "trace/call_kind.h"

namespace nexar::comm {

struct CallWords {
  trace::CallDesc desc;
  uint64_t descriptor = 0;
};

// Derived from args (size: the communicator's), with no cache.
CallWords call_words(const coll::CollArgs& args, int size);

class CallWordsCache {
 public:
  // call_words(args, size), from the last call of args' kind when it had the same shape.
  // The kinds whose counts are in arrays are derived every time.
  CallWords get(const coll::CollArgs& args, int size);

 private:
  struct Entry {
    bool valid = false;
    size_t count = 0;
    nexar_dtype_t dtype{};
    nexar_op_t op{};
    int root = 0;
    bool closing = false;  // a barrier's: nexar_comm_destroy's has a descriptor of its own
    CallWords words;
  };
  std::array<Entry, coll::kCollKindCount> last_;
};

}  // namespace nexar::comm
