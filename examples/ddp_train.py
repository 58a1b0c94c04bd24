# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""A small model trained with DistributedDataParallel on nexar's PyTorch backend.

    PYTHONPATH=build/python build/launcher/nexrun -np 4 python3 examples/ddp_train.py [--steps N]

Each rank draws its own batches of a synthetic regression task (y = x @ W + noise); DDP
averages the gradients with backend "nexar" (--backend gloo for a comparison).
"""
import argparse
import datetime
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import nexar_torch  # noqa: F401  (registers the backend "nexar")


def make_model():
    """The example's model: a 3-layer MLP, ~170k parameters (also used by tools/torch_bench.py)."""
    return torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                               torch.nn.ReLU(), torch.nn.Linear(256, 16))


def synthetic_batch(gen, batch, w_true):
    x = torch.randn(batch, 64, generator=gen)
    return x, x @ w_true + 0.01 * torch.randn(batch, 16, generator=gen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--backend", default="nexar")
    args = ap.parse_args()
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=120))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # the same initial model everywhere (DDP also broadcasts rank 0's)
    w_true = torch.randn(64, 16, generator=torch.Generator().manual_seed(1))
    model = DDP(make_model())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1000 + rank)  # each rank its own data
    start = time.perf_counter()
    for step in range(args.steps):
        x, y = synthetic_batch(gen, args.batch, w_true)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == args.steps - 1:
            avg = loss.detach().clone()
            dist.all_reduce(avg)  # SUM: gloo has no AVG
            if rank == 0:
                print(f"step {step:4d}  loss {avg.item() / world:.4f}", flush=True)
    elapsed = time.perf_counter() - start
    if rank == 0:
        print(f"{args.steps} steps on {world} ranks with {args.backend}: {elapsed / args.steps * 1e3:.2f} ms/step",
              flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
