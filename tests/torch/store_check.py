# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Under torchrun (no nexrun): the "nexar" default group joins by a unique id that rank 0
passes through torch's store, first torchrun's (env://), then an explicit FileStore; a
later whole-world group duplicates the world. Each world does a few exact operations."""
import datetime
import os

import torch
import torch.distributed as dist

import nexar_torch  # noqa: F401  (registers the backend)

assert "NEXAR_RANK" not in os.environ, "this test runs without nexrun"
TIMEOUT = datetime.timedelta(seconds=30)


def exercise(how):
    rank, n = dist.get_rank(), dist.get_world_size()
    t = torch.full((5,), float(rank + 1))
    dist.all_reduce(t)
    assert torch.equal(t, torch.full((5,), n * (n + 1) / 2.0)), t
    b = torch.arange(7, dtype=torch.int64) if rank == n - 1 else torch.zeros(7, dtype=torch.int64)
    dist.broadcast(b, n - 1)
    assert torch.equal(b, torch.arange(7, dtype=torch.int64)), b
    got = torch.zeros(3)
    send = dist.isend(torch.full((3,), float(rank)), (rank + 1) % n)
    dist.recv(got, (rank - 1) % n)
    send.wait()
    assert torch.equal(got, torch.full((3,), float((rank - 1) % n))), got
    whole = dist.new_group(list(range(n)))  # a duplicate of the world
    g = torch.ones(2)
    dist.all_reduce(g, group=whole)
    assert torch.equal(g, torch.full((2,), float(n))), g
    dist.barrier()
    print(f"{how} ok rank {rank} of {n}", flush=True)


dist.init_process_group("nexar", timeout=TIMEOUT)  # torchrun's MASTER_ADDR/PORT, RANK, WORLD_SIZE
exercise("torchrun env")
dist.destroy_process_group()

store = dist.FileStore(os.environ["NEXAR_TEST_STORE"], int(os.environ["WORLD_SIZE"]))
dist.init_process_group("nexar", store=store, rank=int(os.environ["RANK"]),
                        world_size=int(os.environ["WORLD_SIZE"]), timeout=TIMEOUT)
exercise("explicit store")
dist.destroy_process_group()
