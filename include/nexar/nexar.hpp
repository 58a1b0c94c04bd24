// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar.hpp: a C++20 wrapper over the C API (nexar.h). RAII communicators and requests,
// errors as nexar::Error exceptions carrying the code and the library's message, and
// std::span overloads that infer the dtype.
//
//   auto world = nexar::Communicator::init();
//   std::vector<float> v(1024);
//   world.send(std::span<const float>(v), 1, /*tag=*/0);
//
// Thread safety is the C API's: any thread may call any method. This header includes all
// of the wrapper; each part is a header of its own:
//   nexar/error.hpp            nexar::Error, check(), check_blocks()
//   nexar/dtype.hpp            dtype_of<T>(), region()
//   nexar/status.hpp           MessageStatus
//   nexar/request.hpp          Request, GroupGuard
//   nexar/rpc.hpp              RpcHandler
//   nexar/communicator.hpp     Communicator
//   nexar/parallel_groups.hpp  ParallelGroups, make_parallel_groups()
#pragma once

#include "nexar/communicator.hpp"
#include "nexar/dtype.hpp"
#include "nexar/error.hpp"
#include "nexar/nexar.h"
#include "nexar/parallel_groups.hpp"
#include "nexar/request.hpp"
#include "nexar/rpc.hpp"
#include "nexar/status.hpp"
