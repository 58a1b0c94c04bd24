// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Alltoallv by direct reads, for ranks of one host with shared slots:
//  1. every rank exposes a table of what it sends and expects per peer,
//     {sendcounts[j], displacement of block j, recvcounts[j]} for each j, and its send
//     blocks, then arrives. A rank whose send data is at most NEXAR_SHM_ALLTOALLV_PUSH
//     bytes *pushes* (shm_coll/push_segment.h): it copies the table and its blocks for
//     the others (its own too when in place) into its own shared segment, named in its slot;
//     otherwise the table and the blocks stay in its memory and readers use CMA;
//  2. it reads row r of every peer's table and checks each pair as vcount_check.h does,
//     both ways; if all agree, it copies each block for it into its receive buffer (peers
//     from r + 1 on, so the readers of one rank spread out): a memcpy from a pushed
//     segment, else a CMA read of the peer's send buffer;
//  3. publishes read_done. A rank that pushed returns now: nobody reads its own memory,
//     and its segment is rewritten only two sequences later, when every member has
//     arrived at the next one and so finished reading this one. A rank that did not waits
//     for every member's read_done first (until then peers read its memory).
// One slot round for the pushing ranks and one copy per byte more than the direct read,
// two rounds for the others; no messages. Ranks choose per call and independently (the
// slot says which), so a hot rank may read while the others push. It does its own pair
// check, so select_and_run skips the message-based one (AlgoDesc::checks_counts). Both
// ranks of a pair that disagrees fail with the same text and write nothing; the others
// may complete (their pairs agree) and learn of the break at their next call.
#include <cstring>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/alltoallv_layout.h"
#include "collectives/vcount_check.h"
#include "core/fault.h"
#include "core/params.h"
#include "shm_coll/direct_round.h"
#include "shm_coll/push_segment.h"

namespace nexar::coll {
namespace {

constexpr size_t kRow = 3;  // table words per peer: sendcounts[j], displacement, recvcounts[j]

// Bytes of a pushed segment's table (whole lines); the blocks follow it.
size_t table_bytes(int p) { return (kRow * sizeof(uint64_t) * static_cast<size_t>(p) + 63) / 64 * 64; }

// Whether this rank pushes its own block too: in place, its receive would overwrite
// blocks still to be read; otherwise it is copied straight from sendbuf.
bool pushes_own(const CollArgs& a, int r, int j) { return j != r || a.sendbuf == a.recvbuf; }

// The segment bytes this rank pushes, or 0 when it sends more than NEXAR_SHM_ALLTOALLV_PUSH.
size_t push_bytes(const CollArgs& a, int p, int r, size_t es) {
  const int64_t limit = param::NEXAR_SHM_ALLTOALLV_PUSH.get();
  size_t data = 0;
  for (int j = 0; j < p; ++j) data += pushes_own(a, r, j) ? a.sendcounts[j] * es : 0;
  return limit > 0 && data <= static_cast<uint64_t>(limit) ? table_bytes(p) + data : 0;
}

// Copies this rank's table and its blocks (see pushes_own) into its segment for seq
// (push_segment.h). nullptr when it does not push (too much data, or no segment: it is
// read by CMA then).
const unsigned char* push(ShmSlots& s, uint64_t seq, const CollArgs& a, int p, int r, size_t es) {
  unsigned char* area = push_area(s, r, seq, push_bytes(a, p, r, es));
  if (!area) return nullptr;
  uint64_t* table = reinterpret_cast<uint64_t*>(area);
  unsigned char* blocks = area + table_bytes(p);
  size_t off = 0;  // elements
  for (int j = 0; j < p; ++j) {
    uint64_t* row = &table[kRow * static_cast<size_t>(j)];
    row[0] = a.sendcounts[j], row[1] = off, row[2] = a.recvcounts[j];
    if (!pushes_own(a, r, j)) continue;
    copy_elems(blocks + off * es, at(a.sendbuf, a.sdispls[j], es), a.sendcounts[j], es);
    off += a.sendcounts[j];
  }
  return area;
}

// Member j's block for this rank: in j's pushed segment (local) or in j's memory (from).
struct Source {
  const unsigned char* local = nullptr;
  uint64_t from = 0;
};

// Reads row r of member j's table, checks the pair both ways and finds j's block for r.
Status find_block(ShmSlots& s, uint64_t seq, const CollArgs& a, int p, int r, int j, size_t es, Source* out) {
  uint64_t row[kRow];  // j's sendcounts[r], displacement of that block, recvcounts[r]
  const unsigned char* seg = nullptr;
  size_t seg_bytes = 0;
  NX_RETURN_IF_ERROR(pushed_data(s, j, seq, table_bytes(p), &seg, &seg_bytes));
  if (seg) {
    std::memcpy(row, seg + kRow * sizeof(uint64_t) * static_cast<size_t>(r), sizeof row);
  } else {
    NX_RETURN_IF_ERROR(s.read(j, row, s.buf(j, seq)->recvbuf + kRow * sizeof(uint64_t) * static_cast<uint64_t>(r), sizeof row));
  }
  NX_RETURN_IF_ERROR(check_pair_counts(a, j, row[0], a.recvcounts[j], r, a.sendcounts[j], row[2]));
  if (!seg) {
    out->from = s.buf(j, seq)->sendbuf + row[1] * es;
    return Status::Ok();
  }
  const size_t room = (seg_bytes - table_bytes(p)) / es;  // elements after the table
  if (row[1] > room || room - row[1] < row[0])
    return Status(NEXAR_ERR_PROTOCOL, strprintf("alltoallv: a member's pushed block (%llu elements at %llu) lies past "
                                                "its segment (%zu elements)", static_cast<unsigned long long>(row[0]),
                                                static_cast<unsigned long long>(row[1]), room));
  out->local = seg + table_bytes(p) + row[1] * es;
  return Status::Ok();
}

}  // namespace

Status alltoallv_shm_direct(CollContext& ctx, const CollArgs& a) {
  const int p = ctx.size(), r = ctx.rank();
  AlltoallvLayout l(p);
  ShmSlots* s = ctx.shm_slots();
  if (!s) return l.prepare(a, r);  // one rank: its own block is all
  const size_t es = dtype_size(a.dtype);
  const uint64_t seq = s->next_seq();
  const unsigned char* mine = push(*s, seq, a, p, r, es);
  std::vector<uint64_t> table;
  if (mine) {
    NX_RETURN_IF_ERROR(arrive_pushing(*s, r, seq, nullptr, nullptr, 0));
  } else {
    NX_RETURN_IF_ERROR(l.prepare(a, r, /*own_block=*/false));
    table.resize(kRow * static_cast<size_t>(p));
    for (int j = 0; j < p; ++j) {
      uint64_t* row = &table[kRow * static_cast<size_t>(j)];
      row[0] = a.sendcounts[j], row[1] = a.sdispls[j], row[2] = a.recvcounts[j];
    }
    NX_RETURN_IF_ERROR(arrive_pushing(*s, r, seq, l.send_base(), table.data(), 0));  // recvbuf: the table
  }
  fault::stop_point("alltoallv_read", static_cast<int>(param::NEXAR_RANK.get()));  // testing only (NEXAR_FAULT_STOP)
  std::vector<Source> src(static_cast<size_t>(p));
  Status st;
  for (int k = 1; k < p && st.ok(); ++k) {
    const int j = (r + k) % p;
    st = find_block(*s, seq, a, p, r, j, es, &src[static_cast<size_t>(j)]);
  }
  if (st.ok() && mine) {
    const uint64_t* own = reinterpret_cast<const uint64_t*>(mine) + kRow * static_cast<size_t>(r);
    const void* from = pushes_own(a, r, r) ? mine + table_bytes(p) + own[1] * es : at(a.sendbuf, a.sdispls[r], es);
    copy_elems(at(a.recvbuf, a.rdispls[r], es), from, a.recvcounts[r], es);
  } else if (st.ok()) {
    l.copy_own(a, r);
  }
  for (int k = 1; k < p && st.ok(); ++k) {
    const int j = (r + k) % p;
    const Source& b = src[static_cast<size_t>(j)];
    if (!a.recvcounts[j]) continue;
    if (b.local) copy_bytes(at(a.recvbuf, a.rdispls[j], es), b.local, a.recvcounts[j] * es);
    else st = s->read(j, at(a.recvbuf, a.rdispls[j], es), b.from, a.recvcounts[j] * es);
  }
  // A rank that pushed is read by nobody: its segment outlives this call.
  return end_direct(*s, seq, st, mine ? kReadByNobody : kReadByAll);
}

// One slot round, p - 1 small reads (a/4 each) and n(p-1)/p bytes copied once; a rank
// sending more than NEXAR_SHM_ALLTOALLV_PUSH bytes waits for a second round.
double alltoallv_shm_direct_cost(const CostModel& m, int p, double n) {
  const int64_t push = param::NEXAR_SHM_ALLTOALLV_PUSH.get();
  const double rounds = push > 0 && n <= static_cast<double>(push) ? 1 : 2;
  return m.slot_rounds(rounds, p) + (p - 1) * m.alpha_us / 4 + n * (p - 1) / p * m.beta_us_per_byte;
}

}  // namespace nexar::coll
