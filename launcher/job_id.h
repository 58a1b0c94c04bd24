// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A job's identity: 128 random bits as 32 lowercase hex digits.
#pragma once

#include <string>

#include "core/status.h"

namespace nexar::launcher {

Status make_job_id(std::string* out);

}  // namespace nexar::launcher
