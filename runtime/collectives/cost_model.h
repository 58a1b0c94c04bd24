// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The cost model that ranks algorithms: time = messages * latency + bytes / bandwidth
// + bytes reduced / reduction rate, per algorithm (formulas in each algorithm's file and
// in docs/collectives.md). Parameters come from NEXAR_COST_* (per transport).
#pragma once

#include <cstddef>

#include "collectives/coll_context.h"

namespace nexar::coll {

const char* coll_transport_name(CollTransport t);

struct CostModel {
  double alpha_us = 25.0;       // per message (latency)
  double beta_us_per_byte = 0;  // 1 / bandwidth
  double gamma_us_per_byte = 0; // 1 / local reduction rate
  size_t segment_bytes = 1 << 20;
  int pipeline_depth = 4;
  size_t bucket_bytes = 16 << 20;  // allreduce_bucketed staging chunk
  // beta is what a large transfer between processes costs per byte (CMA: page pinning,
  // the kernel's copy); a byte memcpy'd within shared memory costs beta / cma_factor.
  // Measured 4-10x (process_vm_readv against a memcpy in 128 KiB pieces, 64 KiB-8 MiB,
  // best of 20, one core, 2026-11-27: 512 KiB 26.6 / 6.6 us, 8 MiB 1872 / 224 us); with
  // b at 5 GB/s the default 5 prices a memcpy at 25 GB/s, below the 31-54 GB/s measured.
  double cma_factor = 5;
  size_t stage_bytes = 64 << 20;  // NEXAR_SHM_STAGE_BYTES: inputs staged while (p + 1) n fits
  size_t cache_bytes = 32 << 20;  // NEXAR_COST_CACHE_BYTES: the largest CPU cache (0 there: sysfs's)
  size_t private_cache_bytes = 1 << 20;  // NEXAR_COST_PRIVATE_CACHE_BYTES: one core's own (0 there: sysfs's)
  // Whether a pipelined algorithm's reductions overlap its transfers: over the network the
  // kernel and the progress thread move the bytes meanwhile; over shared memory the
  // receiving rank moves them itself (a CMA read or a copy out of the ring), so every
  // byte's reduction adds to its transfer (for_messages sets it).
  bool reduce_overlaps_transfer = true;
  int cores = 1;                   // CPUs this process may run on (ranks beyond them wait for one)
  size_t eager_bytes = 0;          // shared memory: NEXAR_SHM_EAGER (0: no rendezvous, the network)
  bool same_host = false;          // the shared-memory model: the ranks' cores share caches

  // alpha * msgs + beta * bytes
  double xfer(double msgs, double bytes) const { return alpha_us * msgs + beta_us_per_byte * bytes; }
  double reduce(double bytes) const { return gamma_us_per_byte * bytes; }
  // k rounds through the shared slots (a/2 each: a store and a cache-line read per member).
  // With more ranks than cores a round also waits for every member to be scheduled: a
  // round then costs p / cores times more (8 ranks on 2 cores: shm_flat's one round beat
  // shm_stage's two, 15-17 us against 20-25 us, and shm_direct's three took 120-280 us).
  double slot_rounds(double k, int p) const { return k * alpha_us / 2 * crowding(p); }
  // What a byte memcpy'd between processes through shared memory (a slot's inline data, a
  // pushed segment) costs. With more ranks than cores a memcpy (b / cma_factor): the
  // copies of ranks that share a core run one after another in its cache. With a core
  // per rank the copy crosses to the other core's cache and costs what a CMA read does
  // (b): 2 ranks on 2 cores, allgather 1 MiB 190 us through pushed segments against
  // 80-110 us read directly (2026-11-27, load 12).
  double shared_copy_beta(int p) const { return p > cores ? beta_us_per_byte / cma_factor : beta_us_per_byte; }
  // What a byte memcpy'd through a shared segment costs in a call that touches `footprint`
  // bytes in all: b / cma_factor while they fill at most half the largest cache, b beyond,
  // where the copy runs at memory speed as a CMA read does. Half: the rest holds what else
  // runs, and a set-associative cache misses well before it is full. 2 ranks, reduce 2 MiB
  // (14 MiB touched of 32) took shm_stage 123-154 us, 4 MiB (28 MiB) 500-834 us, where
  // shm_direct's CMA reads took 167-199 and 350-500 us (2026-11-28, quiet machine); 16 MiB
  // (98 MiB): 6.2-8.6 ms against 4.7-7.1 ms (2026-11-27, load 6-7).
  double cached_copy_beta(double footprint) const {
    return footprint > static_cast<double>(cache_bytes) / 2 ? beta_us_per_byte : beta_us_per_byte / cma_factor;
  }
  // What a byte written by a rank on another core costs to read beyond a cached byte,
  // while what each rank touches in the call (`rank_footprint`) fits its core's private
  // cache: the lines are still dirty there and cross between the cores as a CMA read's do
  // (b). Beyond, the writer's core has evicted them to the shared cache, and nothing more
  // (0); so too when ranks share a core (the lines are in its own cache). 2 ranks on 2
  // cores, reduce 256 KiB: shm_stage, whose root reads the other rank's staged half and
  // its half of the result, took 32-39 us, shm_direct 19-25 us; at 1 MiB 64-78 us against
  // 85-98 us (2026-11-28, quiet machine).
  double remote_write_extra(double rank_footprint, int p) const {
    const bool in_private = same_host && p <= cores && rank_footprint <= static_cast<double>(private_cache_bytes);
    return in_private ? beta_us_per_byte - beta_us_per_byte / cma_factor : 0;
  }
  // The extra of an allreduce's allgather phase (shm_direct's, the message algorithms'):
  // every rank reads the n(p-1)/p bytes other ranks reduced in the call, while each rank's
  // input and output (2n) fit a core's own cache. 2 ranks on 2 cores, allreduce 256 KiB
  // (2026-11-28): halving_doubling 39-54 us, shm_stage 37-44.
  double reduced_results_extra(int p, double n) const { return n * (p - 1.0) / p * remote_write_extra(2 * n, p); }
  // How many times more a reduce_scatter's message algorithm (halving, ring) pays for its
  // bytes, sent and reduced, with more ranks than cores on one host. Each step copies the
  // partner's message out of the ring into a receive buffer and then reduces it into a work
  // buffer, whole, and every exchange waits for the partner, so the ranks sharing a core
  // switch between the copy and the reduction and find their buffers evicted; shm_direct's
  // rank reads and reduces all its blocks piece by piece through a cache-resident buffer
  // after one wait. Measured per byte of n(p-1)/p beyond 64 KiB (2026-11-28, ba8a11d, quiet
  // machine), halving took 0.59-0.73 ns at 8 ranks on 2 cores and 0.45-0.67 at 4, where
  // b(1 + 1/c) + g prices 0.49: 1.5 times that puts the choice between halving and
  // shm_direct where it measured (8 ranks: halving up to 128 KiB, 4 ranks up to 32 KiB).
  double crowded_reduced_bytes(int p) const { return same_host && p > cores ? 1.5 : 1.0; }
  // How many times longer a round waits for its members to be scheduled: p / cores with
  // more ranks than cores, else 1.
  double crowding(int p) const { return p > cores ? static_cast<double>(p) / cores : 1.0; }
  // The model for the message algorithms of p ranks on one host: a message waits for its
  // receiver to be scheduled as a slot round waits for its members, so its latency costs
  // crowding(p) times more (8 ranks on 2 cores, 64 KiB allgather: recursive_doubling took
  // 4.6-5.5 ms where shm_direct, whose two rounds the unscaled model priced higher, took
  // 0.38-0.42 ms).
  // The model for messages relayed over `hops` links on average (a sparse NEXAR_TOPOLOGY,
  // peer_pattern.h): every hop stores and forwards the whole message, so latency and
  // bandwidth cost that many times more; the reduction does not.
  CostModel stretched(double hops) const {
    CostModel c = *this;
    c.alpha_us *= hops;
    c.beta_us_per_byte *= hops;
    return c;
  }
  // The model for messages of msg_bytes over shared memory: above NEXAR_SHM_EAGER a
  // message is a rendezvous (the sender's RTS, the receiver's CMA read, its ACK back: a
  // ring record each way and a poll on both sides where a small message has one), so its
  // latency counts twice. Measured at np 2 (2026-11-27), the message algorithms took
  // 1.3-2x the time of shm_direct's direct reads at 256 KiB-1 MiB (allgather
  // recursive_doubling 24-27 us against 10-16 us at 256 KiB, 69-110 us against 52-69 us
  // at 1 MiB) where the unscaled model priced them 0.5 us cheaper.
  CostModel rendezvous_messages(double msg_bytes) const {
    CostModel c = *this;
    if (eager_bytes > 0 && msg_bytes > static_cast<double>(eager_bytes)) c.alpha_us *= 2;
    return c;
  }
  // The model for messages of msg_bytes (more than 0, up to NEXAR_SHM_EAGER) over shared
  // memory: the sender first copies the payload into the receiver's ring (a memcpy within
  // shared memory, b / cma_factor per byte as the slot algorithms' copies count) and the
  // receiver then moves it out (b), where a direct read of the owner's buffer (CMA) moves
  // each byte once.
  CostModel eager_messages(double msg_bytes) const {
    CostModel c = *this;
    if (eager_bytes > 0 && msg_bytes > 0 && msg_bytes <= static_cast<double>(eager_bytes))
      c.beta_us_per_byte *= 1 + 1 / cma_factor;
    return c;
  }
  CostModel crowded_messages(int p) const {
    CostModel c = *this;
    c.alpha_us *= crowding(p);
    return c;
  }
};

// Reads NEXAR_COST_* for transport t, NEXAR_RING_SEGMENT_BYTES, NEXAR_RING_PIPELINE_DEPTH
// and NEXAR_BUCKET_BYTES.
CostModel cost_model_from_params(CollTransport t);

int ceil_log2(int p);
int floor_pow2(int p);
inline bool is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }

}  // namespace nexar::coll
