// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The identity of this host: ranks publishing the same one share memory (and will use
// the shared-memory transport). NEXAR_HOST_ID overrides it (tests make ranks "hosts").
#pragma once

#include <string>

namespace nexar::bootstrap {

std::string host_identity();

}  // namespace nexar::bootstrap
