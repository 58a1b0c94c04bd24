// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/call_words.h"

#include "comm/coll_descriptor.h"
#include "comm/coll_trace.h"

namespace nexar::comm {

CallWords call_words(const coll::CollArgs& args, int size) { return CallWords{coll_desc(args, size), pack_descriptor(args)}; }

CallWords CallWordsCache::get(const coll::CollArgs& a, int size) {
  if (coll::counts_in_arrays(a.kind)) return call_words(a, size);
  Entry& e = last_[static_cast<size_t>(a.kind)];
  if (!e.valid || e.count != a.count || e.dtype != a.dtype || e.op != a.op || e.root != a.root ||
      e.closing != a.closing)
    e = Entry{true, a.count, a.dtype, a.op, a.root, a.closing, call_words(a, size)};
  return e.words;
}

}  // namespace nexar::comm
