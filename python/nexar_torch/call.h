// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A deferred collective's nexar call (nexar_call.h makes them), held inside the Work.
//
// Like std::function<nexar_result_t(nexar_request_t *)>, but the callable lives in the
// object itself: a collective's call captures its arguments (64 bytes for an all_reduce,
// 120 for an all-to-all with counts), more than std::function keeps without a heap
// allocation, and one Call is made per torch collective.
#pragma once

#include <nexar/nexar.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace nexar_torch {

class Call {
 public:
  // The largest callable a Call holds (an all-to-all's: four count vectors and three pointers).
  static constexpr std::size_t kCapacity = 128;

  Call() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Call>>>
  Call(F &&f) {  // NOLINT(google-explicit-constructor): a lambda converts like to std::function
    using Fn = std::decay_t<F>;
    static_assert(sizeof(Fn) <= kCapacity && alignof(Fn) <= alignof(std::max_align_t),
                  "a collective's call must fit in Call::kCapacity");
    static_assert(std::is_nothrow_move_constructible_v<Fn>);
    new (storage_) Fn(std::forward<F>(f));
    ops_ = &kOps<Fn>;
  }
  Call(Call &&other) noexcept { take(other); }
  Call &operator=(Call &&other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
  ~Call() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  // Runs the call: blocking when req is null, else non-blocking into *req.
  nexar_result_t operator()(nexar_request_t *req) { return ops_->invoke(storage_, req); }

 private:
  struct Ops {
    nexar_result_t (*invoke)(void *self, nexar_request_t *req);
    void (*move_to)(void *from, void *to);  // move-constructs at to, destroys from
    void (*destroy)(void *self);
  };
  template <class Fn>
  static constexpr Ops kOps = {
      [](void *self, nexar_request_t *req) { return (*static_cast<Fn *>(self))(req); },
      [](void *from, void *to) {
        new (to) Fn(std::move(*static_cast<Fn *>(from)));
        static_cast<Fn *>(from)->~Fn();
      },
      [](void *self) { static_cast<Fn *>(self)->~Fn(); },
  };

  void take(Call &other) {
    if (other.ops_ == nullptr) return;
    other.ops_->move_to(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  void reset() {
    if (ops_ != nullptr) std::exchange(ops_, nullptr)->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[kCapacity];
  const Ops *ops_ = nullptr;
};

}  // namespace nexar_torch
