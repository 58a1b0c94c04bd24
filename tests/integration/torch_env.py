# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# A stock PyTorch program using env:// rendezvous, run unchanged under nexrun: torch reads
# MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE and LOCAL_RANK from nexrun's environment.
import datetime
import os

import torch
import torch.distributed as dist

dist.init_process_group(backend="gloo", init_method="env://", timeout=datetime.timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.arange(4, dtype=torch.float64) + rank
dist.all_reduce(t)
expected = torch.arange(4, dtype=torch.float64) * world + world * (world - 1) / 2
assert torch.equal(t, expected), (t, expected)
print(f"torch ok rank {rank} of {world} local {os.environ['LOCAL_RANK']}", flush=True)
dist.destroy_process_group()
