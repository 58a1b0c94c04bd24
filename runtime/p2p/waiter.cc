// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "p2p/waiter.h"

namespace nexar::p2p {

void Waiter::configure(transport::Doorbell* bell, Progress* progress, int64_t spin_ns, SpinYield yield,
                       SpinListener* listener) {
  bell_ = bell ? bell : &own_bell_;
  progress_ = progress;
  listener_ = listener;
  spin_ns_ = spin_ns;
  yield_ = yield;
}

Waiter& Waiter::fallback() {
  static Waiter w;
  return w;
}

}  // namespace nexar::p2p
