// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar/rpc.hpp: remote procedure handlers as C++ callables (nexar_rpc_*).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "nexar/error.hpp"
#include "nexar/nexar.h"

namespace nexar {

// A remote procedure's handler (Communicator::rpc_register): gets the caller's rank and the
// argument bytes, returns the result bytes.
using RpcHandler = std::function<std::vector<uint8_t>(int caller, std::span<const uint8_t> args)>;

namespace detail {
// The C callback (nexar_rpc_fn_t) behind every RpcHandler: runs *user and sets the reply;
// an Error it throws becomes the caller's result code, another exception
// NEXAR_ERR_INTERNAL (no exception crosses the C library).
inline nexar_result_t run_rpc_handler(void* user, int caller, const void* args, size_t bytes, nexar_rpc_reply_t reply) {
  try {
    const auto* a = static_cast<const uint8_t*>(args);
    std::vector<uint8_t> out = (*static_cast<RpcHandler*>(user))(caller, std::span<const uint8_t>(a, a ? bytes : 0));
    return nexar_rpc_reply_set(reply, out.data(), out.size());
  } catch (const Error& e) {
    return e.code();
  } catch (...) {
    return NEXAR_ERR_INTERNAL;
  }
}
}  // namespace detail

}  // namespace nexar
