// validate_collective_args: the local checks the API layer runs before anything is sent.
#include <cstdint>
#include <cstring>

#include "collectives/collective.h"
#include "core/dtype.h"

namespace nexar::coll {

Status invalid(const CollArgs& a, const std::string& what) {
  return Status(NEXAR_ERR_INVALID_ARGUMENT, strprintf("%s: %s", coll_kind_name(a.kind), what.c_str()));
}

namespace {


// The value of a C enum argument read as an int: a caller may pass any int, and loading
// an out-of-range value as the enum type is undefined behaviour (UBSan: -fsanitize=enum).
template <typename E>
int raw_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Elements each buffer holds: the vector, or size * count for the gather/scatter family
// (0 when the rank does not use that buffer).
struct Extents {
  size_t send = 0, recv = 0;
  bool overflow = false;
};

Extents extents(const CollArgs& a, int rank, int size) {
  Extents e;
  const size_t p = static_cast<size_t>(size);
  const bool root = rank == a.root;
  const bool all_fits = a.count <= SIZE_MAX / p;
  const size_t all = all_fits ? a.count * p : 0;
  switch (a.kind) {
    case CollKind::ALLREDUCE: case CollKind::SCAN: case CollKind::EXSCAN: e.send = e.recv = a.count; break;
    case CollKind::BROADCAST: e.recv = a.count; break;
    case CollKind::REDUCE: e.send = a.count; e.recv = root ? a.count : 0; break;
    case CollKind::ALLGATHER: e.send = a.count; e.recv = all; e.overflow = !all_fits; break;
    case CollKind::GATHER: e.send = a.count; e.recv = root ? all : 0; e.overflow = root && !all_fits; break;
    case CollKind::SCATTER: e.send = root ? all : 0; e.recv = a.count; e.overflow = root && !all_fits; break;
    case CollKind::REDUCE_SCATTER: e.send = all; e.recv = a.count; e.overflow = !all_fits; break;
    case CollKind::ALLTOALL: e.send = e.recv = all; e.overflow = !all_fits; break;
    case CollKind::BARRIER: case CollKind::ALLREDUCE_BUCKETED: break;
    case CollKind::ALLGATHERV: case CollKind::GATHERV: case CollKind::SCATTERV: case CollKind::ALLTOALLV:
    case CollKind::REDUCE_SCATTER_V: break;  // validate_vector_args
  }
  return e;
}

}  // namespace

Status validate_collective_args(const CollArgs& a, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    return invalid(a, strprintf("rank %d of %d ranks is not a valid position", rank, size));
  const bool has_data = a.kind != CollKind::BARRIER;
  const int dtype = raw_value(a.dtype), op = raw_value(a.op);
  if (has_data && (dtype < NEXAR_INT8 || dtype > NEXAR_FLOAT64))
    return invalid(a, strprintf("dtype %d is not a nexar_dtype_t", dtype));
  if (uses_op(a.kind) && (op < NEXAR_SUM || op > NEXAR_AVG)) return invalid(a, strprintf("op %d is not a nexar_op_t", op));
  if (uses_root(a.kind) && (a.root < 0 || a.root >= size))
    return invalid(a, strprintf("root %d is outside [0, %d)", a.root, size));
  if (!has_data) return Status::Ok();
  if (is_vector_kind(a.kind)) return validate_vector_args(a, rank, size);
  const size_t es = dtype_size(a.dtype);
  if (a.kind == CollKind::ALLREDUCE_BUCKETED) {
    if (a.nbufs > 0 && (a.bufs == nullptr || a.counts == nullptr))
      return invalid(a, strprintf("bufs %p / counts %p is NULL with nbufs %zu", static_cast<const void*>(a.bufs),
                                  static_cast<const void*>(a.counts), a.nbufs));
    size_t total = 0;
    for (size_t i = 0; i < a.nbufs; ++i) {
      if (a.counts[i] > 0 && a.bufs[i] == nullptr) return invalid(a, strprintf("bufs[%zu] is NULL with counts[%zu] = %zu", i, i, a.counts[i]));
      if (a.counts[i] > SIZE_MAX / es - total)
        return invalid(a, strprintf("counts add up past the addressable size at counts[%zu] = %zu", i, a.counts[i]));
      total += a.counts[i];
    }
    return Status::Ok();
  }
  const Extents e = extents(a, rank, size);
  if (e.overflow || e.send > SIZE_MAX / es || e.recv > SIZE_MAX / es)
    return invalid(a, strprintf("count %zu x %d ranks x %zu bytes overflows size_t", a.count, size, es));
  if (e.send > 0 && a.sendbuf == nullptr) return invalid(a, strprintf("sendbuf is NULL with count %zu", a.count));
  if (e.recv > 0 && a.recvbuf == nullptr) return invalid(a, strprintf("recvbuf is NULL with count %zu", a.count));
  return Status::Ok();
}

}  // namespace nexar::coll
