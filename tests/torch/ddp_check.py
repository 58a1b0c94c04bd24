# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""DistributedDataParallel on the "nexar" backend: two training steps on every rank equal
the same two steps of one process on the whole batch (float64, so only rounding differs)."""
import copy

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from common import done, init

rank, n = init()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4)).double()
reference = copy.deepcopy(model)
if rank != 0:  # DDP broadcasts rank 0's parameters: start elsewhere from something else
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
ddp = DDP(model, bucket_cap_mb=0.001)  # several buckets
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
per_rank = 6
for step in range(2):
    gen = torch.Generator().manual_seed(100 + step)
    x = torch.randn(n * per_rank, 8, generator=gen, dtype=torch.float64)
    y = torch.randn(n * per_rank, 4, generator=gen, dtype=torch.float64)
    mine = slice(rank * per_rank, (rank + 1) * per_rank)
    opt.zero_grad()
    torch.nn.functional.mse_loss(ddp(x[mine]), y[mine]).backward()
    opt.step()
    ref_opt.zero_grad()
    torch.nn.functional.mse_loss(reference(x), y).backward()
    ref_opt.step()
for p, q in zip(model.parameters(), reference.parameters()):
    assert torch.allclose(p, q, rtol=1e-12, atol=1e-14), (p - q).abs().max()
done("torch_ddp")
