// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The ring example through the C++ wrapper (nexar.hpp).   nexrun -np 4 ./ring_cpp
#include <cstdio>
#include <nexar/nexar.hpp>
#include <vector>

int main() try {
  auto world = nexar::Communicator::init();
  const int rank = world.rank(), size = world.size();
  std::vector<int64_t> token(4, 0);
  if (size > 1) {
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    auto pending = world.irecv(std::span<int64_t>(token), prev, 0);
    if (rank == 0) {
      world.send(std::span<const int64_t>(token), next, 0);
      pending.wait();
      std::printf("ring_cpp: token came back as %lld (expected %d)\n", static_cast<long long>(token[0]),
                  size * (size - 1) / 2);
    } else {
      pending.wait();
      token[0] += rank;
      world.send(std::span<const int64_t>(token), next, 0);
    }
  }
  world.barrier();
  world.destroy();
  return 0;
} catch (const nexar::Error& e) {
  std::fprintf(stderr, "ring_cpp: %s\n", e.what());
  return 1;
}
