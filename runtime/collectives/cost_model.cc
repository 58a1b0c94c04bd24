// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/cost_model.h"


#include <algorithm>

#include "core/log.h"
#include "core/cores.h"
#include "core/params.h"

namespace nexar::coll {
namespace {

double positive(params::Param<params::Type::DOUBLE> p) {
  const double v = p.get();
  if (v > 0) return v;
  NX_WARN(ENV, "%s=%g must be > 0; using its default", p.name(), v);
  return std::stod(p.default_text());
}

// A cache's bytes: the parameter when set (> 0), else what sysfs says, else the default.
size_t cache_size(params::Param<params::Type::INT> p, size_t sysfs, size_t otherwise) {
  const int64_t v = p.get();
  return v > 0 ? static_cast<size_t>(v) : sysfs > 0 ? sysfs : otherwise;
}

}  // namespace

const char* coll_transport_name(CollTransport t) { return t == CollTransport::SHM ? "shm" : "network"; }

CostModel cost_model_from_params(CollTransport t) {
  CostModel m;
  const bool shm = t == CollTransport::SHM;
  m.alpha_us = positive(shm ? param::NEXAR_COST_SHM_LATENCY_US : param::NEXAR_COST_LATENCY_US);
  // GB/s -> us per byte: 1 GB/s is 1e3 bytes per us.
  m.beta_us_per_byte = 1.0 / (positive(shm ? param::NEXAR_COST_SHM_BANDWIDTH_GBPS : param::NEXAR_COST_BANDWIDTH_GBPS) * 1e3);
  m.gamma_us_per_byte = 1.0 / (positive(param::NEXAR_COST_REDUCE_GBPS) * 1e3);
  const int64_t seg = param::NEXAR_RING_SEGMENT_BYTES.get();
  m.segment_bytes = seg > 0 ? static_cast<size_t>(seg) : size_t{1} << 20;
  const int64_t depth = param::NEXAR_RING_PIPELINE_DEPTH.get();
  m.pipeline_depth = depth >= 1 && depth <= 1024 ? static_cast<int>(depth) : 4;
  const int64_t bucket = param::NEXAR_BUCKET_BYTES.get();
  m.bucket_bytes = bucket > 0 ? static_cast<size_t>(bucket) : size_t{16} << 20;
  m.cma_factor = positive(param::NEXAR_COST_CMA_FACTOR);
  const int64_t stage = param::NEXAR_SHM_STAGE_BYTES.get();
  m.stage_bytes = stage > 0 ? static_cast<size_t>(stage) : 0;
  m.cores = usable_cores();
  m.cache_bytes = cache_size(param::NEXAR_COST_CACHE_BYTES, last_level_cache_bytes(), m.cache_bytes);
  m.private_cache_bytes = cache_size(param::NEXAR_COST_PRIVATE_CACHE_BYTES, private_cache_bytes(), m.private_cache_bytes);
  const int64_t eager = param::NEXAR_SHM_EAGER.get();
  m.same_host = shm;
  m.eager_bytes = shm && eager > 0 ? static_cast<size_t>(eager) : 0;
  return m;
}

int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

int floor_pow2(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

}  // namespace nexar::coll
