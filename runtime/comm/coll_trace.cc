#include "comm/coll_trace.h"

#include "collectives/select.h"
#include "comm/coll_descriptor.h"
#include "core/dtype.h"

namespace nexar::comm {

trace::CallFacts coll_facts(const coll::CollArgs& a, uint32_t seq, int size) {
  trace::CallFacts f;
  f.seq = seq;
  f.kind = coll::coll_kind_name(a.kind);
  f.count = a.count;
  if (a.kind == coll::CollKind::ALLREDUCE_BUCKETED) {
    f.count = 0;
    for (size_t i = 0; i < a.nbufs; ++i) f.count += a.counts[i];
  }
  f.bytes = static_cast<uint64_t>(coll::collective_bytes(a, size));
  if (coll::is_vector_kind(a.kind)) f.count = f.bytes / dtype_size(a.dtype);  // counts differ per peer
  if (uses_data(a.kind)) f.dtype = a.dtype;
  if (uses_op(a.kind)) f.op = a.op;
  if (uses_root(a.kind)) f.root = a.root;
  return f;
}

}  // namespace nexar::comm
