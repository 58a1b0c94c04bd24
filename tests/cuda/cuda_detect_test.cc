// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// device::in_brk_heap: the brk heap is host memory, and nothing outside it counts as heap
// (a stack, a mapping of its own, a range running past the break).
#include <sys/mman.h>
#include <unistd.h>

#include <catch.hpp>
#include <cstdint>

#include "device/cuda_detect.h"

using nexar::device::in_brk_heap;

TEST_CASE("in_brk_heap: only ranges inside the brk heap", "[cuda]") {
  // Memory from the break itself (not given back: malloc may have moved the break since).
  char* heap = static_cast<char*>(sbrk(8192));
  REQUIRE(heap != reinterpret_cast<char*>(-1));
  CHECK(in_brk_heap(heap, 8192));
  CHECK(in_brk_heap(heap + 4096, 4096));
  const auto top = reinterpret_cast<uintptr_t>(sbrk(0));
  const auto in_heap = reinterpret_cast<uintptr_t>(heap);
  CHECK_FALSE(in_brk_heap(heap, top - in_heap + 1));  // runs past the break
  CHECK_FALSE(in_brk_heap(reinterpret_cast<void*>(top), 1));

  int on_stack = 0;
  CHECK_FALSE(in_brk_heap(&on_stack, sizeof on_stack));
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  CHECK_FALSE(in_brk_heap(map, 4096));
  munmap(map, 4096);
  CHECK_FALSE(in_brk_heap(nullptr, 0));
}
