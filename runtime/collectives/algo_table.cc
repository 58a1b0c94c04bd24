// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/algo_table.h"

#include "collectives/algorithms.h"
#include "collectives/one_rank.h"
#include "collectives/vcount_check.h"
#include "core/dtype.h"
#include "core/status.h"

namespace nexar::coll {

// Cost formulas use: a = latency per message, b = seconds per byte sent, g = seconds per
// byte reduced, c = NEXAR_COST_CMA_FACTOR (b / c: a byte copied within shared memory), n = bytes,
// p = ranks, p2 = largest power of two <= p, L = ceil(log2 p).
// In each kind, the first entry wins ties.
namespace {
// One message per ordered pair with data, on one tag (alltoallv_layout.h).
constexpr const char* kAlltoallvMessages = "alltoallv messages";
constexpr const char* kOneRankDoc =
    "a communicator of one rank: one local copy of the input to the result (none in place), no message or slot";
}  // namespace

const std::vector<AlgoDesc>& algo_table() {
  using K = CollKind;
  using P = PeerPattern;
  static const std::vector<AlgoDesc> table = {
      // First, so that they win the ties at p = 1 (other algorithms cost 0 there too).
      {K::ALLREDUCE, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::BROADCAST, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::REDUCE, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::ALLGATHER, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::REDUCE_SCATTER, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::GATHER, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::SCATTER, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::ALLTOALL, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::SCAN, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::EXSCAN, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::BARRIER, "one_rank", kOneRankDoc, "0", one_rank_why_not, one_rank_cost, one_rank},
      {K::ALLREDUCE, "shm_flat", "ranks of one host with shared slots; payloads up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n b + (p-1) n g", nullptr, allreduce_shm_flat_cost, allreduce_shm_flat, P::kNone, true, SlotUse::INLINE},
      {K::ALLREDUCE, "shm_stage",
       "ranks of one host with shared slots that may read each other's memory (CMA); payloads up to "
       "NEXAR_SHM_STAGE_MAX",
       "a + 2n b/c + 2n(p-1)/p x + n(p-1)/p g [(p+1)n > stage bytes: (n(p-1)/p + n/c) b; p > cores: one chunk g]", allreduce_shm_stage_why_not, allreduce_shm_stage_cost, allreduce_shm_stage, P::kNone,
       true, SlotUse::DIRECT},
      {K::ALLREDUCE, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA)",
       "3a/2 + 2n(p-1)/p b + n(p-1)/p x + n(p-1)/p g", nullptr, allreduce_shm_direct_cost, allreduce_shm_direct, P::kNone, true,
       SlotUse::DIRECT},
      {K::ALLREDUCE, "recursive_doubling", "any p (non-powers of two folded in); tiny messages",
       "log2(p2)(a + n b + n g) [+ 2(a + n b) + n g if p != p2]", nullptr, allreduce_recursive_doubling_cost,
       allreduce_recursive_doubling, P::kXorFold},
      {K::ALLREDUCE, "halving_doubling", "any p (non-powers of two folded in); medium messages",
       "2 log2(p2) a + 2n(p2-1)/p2 b + n(p2-1)/p2 g [+ 2(a + n b) + n g if p != p2]", nullptr,
       allreduce_halving_doubling_cost, allreduce_halving_doubling, P::kXorFold},
      {K::ALLREDUCE, "ring", "any p; large messages", "2(p-1) a + 2n(p-1)/p b + n(p-1)/p g", nullptr,
       allreduce_ring_cost, allreduce_ring, P::kRing},
      {K::ALLREDUCE, "ring_pipelined", "any p; very large messages (segments of NEXAR_RING_SEGMENT_BYTES)",
       "(2(p-1) + nseg - 1) a + 2n(p-1)/p b + (one segment) g", nullptr, allreduce_ring_pipelined_cost,
       allreduce_ring_pipelined, P::kRing},
      {K::BROADCAST, "shm_flat", "ranks of one host with shared slots; payloads up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n b", nullptr, broadcast_shm_flat_cost, broadcast_shm_flat, P::kNone, true, SlotUse::INLINE},
      {K::BROADCAST, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); every rank copies from the root's buffer",
       "a + a/4 + n b", nullptr, broadcast_shm_direct_cost, broadcast_shm_direct, P::kNone, true, SlotUse::DIRECT},
      {K::BROADCAST, "shm_split", "ranks of one host with shared slots that may read each other's memory (CMA); readers read the head of the root's buffer while the root writes the tail (n/p) into each",
       "a + (p-1) a/4 + n(p-1)/p b [p > cores: shm_direct's + (p-1) a/4]", nullptr, broadcast_shm_split_cost, broadcast_shm_split, P::kNone, true, SlotUse::DIRECT},
      {K::BROADCAST, "shm_push", "ranks of one host with shared slots and CMA; the root copies its buffer into its shared segment, every rank copies it out (one slot round); up to NEXAR_SHM_PUSH_MAX",
       "3a/4 + 2n b/c [c: NEXAR_COST_CMA_FACTOR with p > cores, else 1]", shm_push_why_not, broadcast_shm_push_cost, broadcast_shm_push, P::kNone, true, SlotUse::DIRECT},
      {K::BROADCAST, "binomial", "any p; small and medium messages", "L (a + n b)", nullptr, broadcast_binomial_cost,
       broadcast_binomial, P::kBinomial, false},
      {K::BROADCAST, "scatter_allgather", "any p; large messages", "(L + p - 1) a + 2n(p-1)/p b", nullptr,
       broadcast_scatter_allgather_cost, broadcast_scatter_allgather, P::kBinomialRing},
      {K::REDUCE, "shm_flat", "ranks of one host with shared slots; payloads up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n b + (p-1) n g", nullptr, reduce_shm_flat_cost, reduce_shm_flat, P::kNone, true, SlotUse::INLINE},
      {K::REDUCE, "shm_stage",
       "ranks of one host with shared slots that may read each other's memory (CMA); allreduce shm_stage with the "
       "root alone copying the result out; payloads up to NEXAR_SHM_STAGE_MAX",
       "as allreduce shm_stage", allreduce_shm_stage_why_not, reduce_shm_stage_cost, reduce_shm_stage, P::kNone, true,
       SlotUse::DIRECT},
      {K::REDUCE, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); each rank reduces a block, the others write theirs into the root's recvbuf",
       "3a/2 + p a/4 + (p = 2: 2n/3 (b + g); else n b + n(p-1)/p g)", nullptr, reduce_shm_direct_cost, reduce_shm_direct, P::kNone, true,
       SlotUse::DIRECT},
      {K::REDUCE, "binomial", "any p; small and medium messages", "L (a + n b + n g)", nullptr, reduce_binomial_cost,
       reduce_binomial, P::kBinomial, false},
      {K::REDUCE, "reduce_scatter_gather", "any p; large messages", "2(p-1) a + 2n(p-1)/p b + n(p-1)/p g", nullptr,
       reduce_scatter_gather_cost, reduce_scatter_gather, P::kRingRoot},
      {K::ALLGATHER, "shm_flat", "ranks of one host with shared slots; inputs up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n(p+1)/p b (n = p * count bytes)", nullptr, allgather_shm_flat_cost, allgather_shm_flat, P::kNone, true,
       SlotUse::INLINE},
      {K::ALLGATHER, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); each rank reads every block from its owner",
       "a + (p-1) a/4 + n(p-1)/p b (n = p * count bytes)", nullptr, allgather_shm_direct_cost, allgather_shm_direct, P::kNone,
       true, SlotUse::DIRECT},
      {K::ALLGATHER, "shm_push", "ranks of one host with shared slots and CMA; each rank copies its block into its shared segment and the others' out of theirs (one slot round); blocks up to NEXAR_SHM_PUSH_MAX",
       "3a/4 + n b/c (n = p * count bytes) [c as in broadcast shm_push]", shm_push_why_not, allgather_shm_push_cost, allgather_shm_push, P::kNone, true,
       SlotUse::DIRECT},
      {K::ALLGATHER, "recursive_doubling", "p a power of two", "L a + n(p-1)/p b (n = p * count bytes)", needs_pow2,
       allgather_recursive_doubling_cost, allgather_recursive_doubling, P::kXorFold},
      {K::ALLGATHER, "ring", "any p", "(p-1) a + n(p-1)/p b (n = p * count bytes)", nullptr, allgather_ring_cost,
       allgather_ring, P::kRing},
      {K::REDUCE_SCATTER, "shm_flat", "ranks of one host with shared slots; inputs (p * count) up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n(p+1)/p b + n g (n = p * count bytes)", nullptr, reduce_scatter_shm_flat_cost, reduce_scatter_shm_flat, P::kNone,
       true, SlotUse::INLINE},
      {K::REDUCE_SCATTER, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); rank r reduces block r from every input",
       "a + (p-1) a/4 + n(p-1)/p (b + g) (n = p * count bytes; p > cores: (p-1) a p/cores for the CMA calls)", nullptr,
       reduce_scatter_shm_direct_cost,
       reduce_scatter_shm_direct, P::kNone, true, SlotUse::DIRECT},
      {K::REDUCE_SCATTER, "halving", "p a power of two", "L a + k n(p-1)/p (b + g) (n = p * count bytes; k = 1.5 for p > cores on one host, else 1)", needs_pow2,
       reduce_scatter_halving_cost, reduce_scatter_halving, P::kXorFold},
      {K::REDUCE_SCATTER, "ring", "any p", "(p-1) a + k n(p-1)/p (b + g) (n = p * count bytes; k as in halving)", nullptr,
       reduce_scatter_ring_cost, reduce_scatter_ring, P::kRing},
      {K::GATHER, "shm_flat", "ranks of one host with shared slots; blocks up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n(p+1)/p b (n = p * count bytes)", nullptr, gather_shm_flat_cost, gather_shm_flat, P::kNone, true,
       SlotUse::INLINE},
      {K::GATHER, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); every other rank writes its contribution into the root's buffer",
       "a + (p-1) a/4 + n(p-1)/p b (n = p * count bytes)", nullptr, gather_shm_direct_cost, gather_shm_direct, P::kNone, true,
       SlotUse::DIRECT},
      {K::GATHER, "binomial", "any p", "L a + n(p-1)/p b (n = p * count bytes)", nullptr, gather_binomial_cost,
       gather_binomial, P::kBinomial, false},
      {K::SCATTER, "shm_flat", "ranks of one host with shared slots; inputs (p * count) up to NEXAR_SHM_COLL_INLINE",
       "a/2 + n(p+1)/p b (n = p * count bytes)", nullptr, scatter_shm_flat_cost, scatter_shm_flat, P::kNone, true,
       SlotUse::INLINE},
      {K::SCATTER, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); every rank reads its block from the root",
       "a + (p-1) a/4 + n(p-1)/p b (n = p * count bytes)", nullptr, scatter_shm_direct_cost, scatter_shm_direct, P::kNone, true,
       SlotUse::DIRECT},
      {K::SCATTER, "binomial", "any p", "L a + n(p-1)/p b (n = p * count bytes)", nullptr, scatter_binomial_cost,
       scatter_binomial, P::kBinomial, false},
      {K::ALLTOALL, "shm_flat", "ranks of one host with shared slots; inputs (p * count) up to NEXAR_SHM_COLL_INLINE",
       "a/2 + 2n b (n = p * count bytes)", nullptr, alltoall_shm_flat_cost, alltoall_shm_flat, P::kNone, true, SlotUse::INLINE},
      {K::ALLTOALL, "shm_direct", "ranks of one host with shared slots that may read each other's memory (CMA); each rank reads its block of every sendbuf",
       "a + (p-1) a/4 + n(p-1)/p b (n = p * count bytes)", nullptr, alltoall_shm_direct_cost, alltoall_shm_direct, P::kNone,
       true, SlotUse::DIRECT},
      {K::ALLTOALL, "shm_push", "ranks of one host with shared slots and CMA; each rank copies its sendbuf into its shared segment and its block of every other's out of theirs (one slot round); sendbufs up to NEXAR_SHM_PUSH_MAX",
       "3a/4 + n(2p-1)/p b/c (n = p * count bytes) [c as in broadcast shm_push]", shm_push_why_not, alltoall_shm_push_cost, alltoall_shm_push, P::kNone,
       true, SlotUse::DIRECT},
      {K::ALLTOALL, "pairwise", "any p", "(p-1) a + n(p-1)/p b (n = p * count bytes)", nullptr, alltoall_pairwise_cost,
       alltoall_pairwise, P::kPairwise},
      {K::SCAN, "recursive_doubling", "any p", "L (a + n b + 2n g)", nullptr, scan_recursive_doubling_cost,
       scan_recursive_doubling, P::kXor, false},
      {K::EXSCAN, "recursive_doubling", "any p", "L (a + n b + 2n g)", nullptr, exscan_recursive_doubling_cost,
       exscan_recursive_doubling, P::kXor, false},
      {K::BARRIER, "shm_flat", "ranks of one host with shared slots", "a/2", nullptr, barrier_shm_flat_cost,
       barrier_shm_flat, P::kNone, true, SlotUse::INLINE},
      {K::BARRIER, "dissemination", "any p", "L a", nullptr, barrier_dissemination_cost, barrier_dissemination, P::kShift},
      {K::BARRIER, "recursive_doubling", "any p (non-powers of two folded in); partners r ^ 2^k (a hypercube's edges)",
       "log2(p2) a [+ 2a if p != p2]", nullptr, barrier_recursive_doubling_cost, barrier_recursive_doubling, P::kXorFold},
      {K::ALLGATHERV, "ring", "any p, any counts", "(p-1) a + n(p-1)/p b (n = bytes gathered)", nullptr,
       allgatherv_ring_cost, allgatherv_ring, P::kRing},
      {K::GATHERV, "linear", "any p, any counts", "(1 + (p-2)/4) a + n(p-1)/p b (n = bytes gathered)", nullptr,
       gatherv_linear_cost, gatherv_linear, P::kRoot, false},
      {K::SCATTERV, "linear", "any p, any counts", "(1 + (p-2)/4) a + n(p-1)/p b (n = bytes scattered)", nullptr,
       scatterv_linear_cost, scatterv_linear, P::kRoot, false},
      {K::ALLTOALLV, "pairwise", "any p; large blocks (one partner at a time)",
       "(p-1) a + n(p-1)/p b (n = bytes this rank sends)", nullptr, alltoallv_pairwise_cost, alltoallv_pairwise, P::kPairwise,
       true, SlotUse::NONE, false, kAlltoallvMessages},
      {K::ALLTOALLV, "scattered", "any p; small blocks in large worlds (every transfer posted at once)",
       "(1 + (p-2)/4) a + max(1.25, p/cores) n(p-1)/p b (n = bytes this rank sends)", nullptr, alltoallv_scattered_cost,
       alltoallv_scattered, P::kPairwise, true, SlotUse::NONE, false, kAlltoallvMessages},
      {K::ALLTOALLV, "bruck",
       "any p; small blocks in large worlds (L rounds; its count rounds are the pair check and agree on the "
       "largest total a rank sends, which chooses between forwarding and the pairwise exchange)",
       "L a + 8pL b + min(L a + L n/2 b, pairwise) (n = bytes this rank sends)", nullptr, alltoallv_bruck_cost,
       alltoallv_bruck, P::kShift, true, SlotUse::NONE, true},
      {K::ALLTOALLV, "shm_direct",
       "ranks of one host with shared slots that may read each other's memory (CMA); checks the counts itself",
       "a/2 (1 slot round; 2 for a rank sending more than NEXAR_SHM_ALLTOALLV_PUSH) + (p-1) a/4 + n(p-1)/p b", nullptr,
       alltoallv_shm_direct_cost, alltoallv_shm_direct, P::kNone, true,
       SlotUse::DIRECT, true},
      {K::REDUCE_SCATTER_V, "ring", "any p, any counts", "(p-1) a + k n(p-1)/p (b + g) (n = bytes of input; k as in reduce_scatter halving)", nullptr,
       reduce_scatter_v_ring_cost, reduce_scatter_v_ring, P::kRing},
      {K::ALLREDUCE_BUCKETED, "staged",
       "any p; packs the buffers into chunks of NEXAR_BUCKET_BYTES, each reduced by the allreduce the model picks",
       "sum over chunks of the chosen allreduce's cost", nullptr, allreduce_bucketed_staged_cost,
       allreduce_bucketed_staged, P::kNone},
  };
  return table;
}

namespace {
// What a shm_flat algorithm puts in a rank's slot: its input, one block or one per rank.
double inline_input_bytes(const CollArgs& args, int p) {
  const double elems = static_cast<double>(args.count) * (kind_traits(args.kind).in.span == Span::RANKS ? p : 1);
  return elems * static_cast<double>(dtype_size(args.dtype));
}
}  // namespace

const char* why_not_here(const AlgoDesc& d, int p, const CollArgs& args, const SlotCaps& caps) {
  if (const char* why = d.why_not ? d.why_not(p, args) : nullptr) return why;
  if (d.slots == SlotUse::NONE || p == 1) return nullptr;
  if (!caps.has_slots)
    return "it needs shared-memory collective slots: every rank on one host over shared memory, NEXAR_SHM_COLL=1, "
           "and a slot area free on every rank when the communicator was made";
  if (d.slots == SlotUse::INLINE && inline_input_bytes(args, p) > static_cast<double>(caps.inline_bytes))
    return "this rank's input is larger than NEXAR_SHM_COLL_INLINE";
  if (d.slots == SlotUse::DIRECT && !caps.can_read_all)
    return "ranks may not read each other's memory (CMA: NEXAR_SHM_CMA=0 or ptrace restrictions)";
  return nullptr;
}

namespace {
// The kinds with a count per rank charge the pair check to the algorithms that do not
// check the counts themselves.
bool needs_pair_check(const AlgoDesc& d) { return is_vector_kind(d.kind) && !d.checks_counts; }
}  // namespace

double algo_cost(const AlgoDesc& d, const CostModel& base, int p, double n, const RouteStretch& routes) {
  const CostModel m = base.stretched(routes[d.peers]);
  return d.cost(m, p, n) + (d.hears_all ? 0.0 : agreement_round_cost(m, p)) +
         (needs_pair_check(d) && p > 1 ? vcount_check_cost(m, p) : 0.0);
}

const AlgoDesc* find_algo(CollKind kind, const std::string& name) {
  for (const AlgoDesc& d : algo_table())
    if (d.kind == kind && name == d.name) return &d;
  return nullptr;
}

std::string describe_algorithms() {
  std::string out;
  for (const AlgoDesc& d : algo_table())
    out += strprintf("%-18s %-22s %s; cost %s%s%s\n", coll_kind_name(d.kind), d.name, d.applies_doc, d.cost_doc,
                     d.hears_all ? "" : " + agreement round L a", needs_pair_check(d) ? " + pair check (1 + (p-2)/4) a" : "");
  return out;
}

}  // namespace nexar::coll
