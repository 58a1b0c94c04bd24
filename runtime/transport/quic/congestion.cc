// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/quic/congestion.h"

namespace nexar::quic {
namespace {

struct Named {
  const char* name;
  ngtcp2_cc_algo algo;
};
constexpr Named kAlgos[] = {{"cubic", NGTCP2_CC_ALGO_CUBIC},
                            {"bbr", NGTCP2_CC_ALGO_BBR},
                            {"bbr2", NGTCP2_CC_ALGO_BBR2},
                            {"reno", NGTCP2_CC_ALGO_RENO}};

}  // namespace

Status check_congestion_name(const std::string& name) {
  for (const Named& n : kAlgos)
    if (name == n.name) return Status::Ok();
  return Status(NEXAR_ERR_INVALID_ARGUMENT,
                "NEXAR_QUIC_CC=" + name + " is not a congestion controller (cubic, bbr, bbr2 or reno)");
}

ngtcp2_cc_algo congestion_algo(const std::string& name) {
  for (const Named& n : kAlgos)
    if (name == n.name) return n.algo;
  return NGTCP2_CC_ALGO_CUBIC;
}

const char* congestion_algo_name(ngtcp2_cc_algo algo) {
  for (const Named& n : kAlgos)
    if (algo == n.algo) return n.name;
  return "?";
}

}  // namespace nexar::quic
