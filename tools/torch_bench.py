# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""all_reduce and a DDP training step on torch.distributed, backend "nexar" against "gloo",
in one run of one program (the default group is nexar's, a second group gloo's).

    PYTHONPATH=build/python build/launcher/nexrun -np 4 python3 tools/torch_bench.py

Prints per size (--sizes; 4 B, 64 KiB, 1 MiB and 16 MiB by default) the median time of one
all_reduce (float32, SUM; a rep runs several back to back) and the bus bandwidth 2(n-1)/n * bytes / time, beside the same all_reduce
through libnexar's C API on the nexar group's communicator and tensor (nexar_allreduce by
ctypes: what torch's path adds), the three ways' reps interleaved; then the median DDP step of
examples/ddp_train.py's model. Rank 0 prints a Markdown table, then the step without any
gradient exchange: the model alone, the model then one nexar barrier (the ranks' slowest
step: what any exchange waits for at least), and DDP with a comm hook that returns the
gradients as they are (what DDP itself costs).
"""
import argparse
import ctypes
import datetime
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import nexar_torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from ddp_train import make_model, synthetic_batch  # noqa: E402

SIZES = [4, 64 << 10, 1 << 20, 16 << 20]
NEXAR_FLOAT32, NEXAR_SUM = 8, 0  # nexar.h's nexar_dtype_t and nexar_op_t


def libnexar_allreduce(group):
    """nexar_allreduce (float32, SUM, in place) called directly on group's communicator:
    libnexar from C, in this process, on the tensor torch reduces."""
    lib = ctypes.CDLL(nexar_torch._C.__file__)  # libnexar's symbols, through the extension's dependencies
    lib.nexar_allreduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                    ctypes.c_void_p]
    comm = ctypes.c_void_p(nexar_torch._C._comm_handle(group))

    def call(t, _group):
        rc = lib.nexar_allreduce(t.data_ptr(), t.data_ptr(), t.numel(), NEXAR_FLOAT32, NEXAR_SUM, comm)
        if rc != 0:
            raise RuntimeError(f"nexar_allreduce returned {rc}")
    return call


def time_allreduce(ways, nbytes, reps):
    """The median time of one all_reduce of nbytes for each way (name: (call, group)), the
    ways' reps interleaved (their order turning each rep) so that they share the machine's
    moments."""
    t = torch.ones(nbytes // 4)
    iters = max(1, min(200, (4 << 20) // max(nbytes, 1)))  # ~4 MiB moved per rep, at least one op
    for call, group in ways.values():
        for _ in range(3):
            call(t, group)
    samples = {name: [] for name in ways}
    names = list(ways)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            call, group = ways[name]
            dist.barrier(group=group)
            start = time.perf_counter()
            for _ in range(iters):
                call(t, group)
            samples[name].append((time.perf_counter() - start) / iters)
    return {name: statistics.median(v) for name, v in samples.items()}


def unreduced(_state, bucket):
    """A DDP comm hook exchanging nothing: the bucket's own gradients."""
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def time_ddp_step(group, steps, wrap="ddp"):
    """The median training step: wrap "ddp" (DDP over group), "no-op hook" (DDP whose comm
    hook exchanges nothing), "none" (the model alone) or "barrier" (the model alone, then a
    barrier over group)."""
    torch.manual_seed(0)
    model = make_model() if wrap in ("none", "barrier") else DDP(make_model(), process_group=group)
    if wrap == "no-op hook":
        model.register_comm_hook(None, unreduced)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(dist.get_rank())
    w_true = torch.randn(64, 16, generator=torch.Generator().manual_seed(1))
    samples = []
    for step in range(steps + 3):
        x, y = synthetic_batch(gen, 32, w_true)
        dist.barrier(group=group)
        start = time.perf_counter()
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        if wrap == "barrier":
            dist.barrier(group=group)
        if step >= 3:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def parse_sizes(text):
    """"4,64K,1M" -> [4, 65536, 1048576]: whole multiples of 4 bytes (float32 elements)."""
    sizes = []
    for item in text.split(","):
        item = item.strip()
        scale = {"K": 1 << 10, "M": 1 << 20}.get(item[-1:].upper(), 1)
        digits = item[:-1] if scale > 1 else item
        if not digits.isdigit() or int(digits) * scale % 4 or int(digits) == 0:
            raise argparse.ArgumentTypeError(f"size {item!r}: a positive number of bytes, a multiple of 4 "
                                             "(float32), with an optional K or M suffix")
        sizes.append(int(digits) * scale)
    return sizes


def size_label(nbytes):
    """4 B, 64 KiB, 1 MiB: the largest binary unit that divides nbytes."""
    for shift, unit in ((20, "MiB"), (10, "KiB")):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def agreed(value):
    """The largest of the ranks' values (the slowest rank sets a collective's time)."""
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--ddp-steps", type=int, default=20)
    ap.add_argument("--sizes", type=parse_sizes, default=SIZES,
                    help="all_reduce sizes in bytes, comma-separated, K and M suffixes (4,64K,1M,16M)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("nexar", timeout=datetime.timedelta(seconds=300))
    n = dist.get_world_size()
    groups = {"nexar": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    torch_call = lambda t, g: dist.all_reduce(t, group=g)  # noqa: E731
    ways = {"nexar": (torch_call, groups["nexar"]), "C": (libnexar_allreduce(groups["nexar"]), groups["nexar"]),
            "gloo": (torch_call, groups["gloo"])}
    rows = []
    for nbytes in args.sizes:
        times = {name: agreed(v) for name, v in time_allreduce(ways, nbytes, args.reps).items()}
        rows.append((f"all_reduce {size_label(nbytes)}", nbytes, times))
    times = {name: agreed(time_ddp_step(g, args.ddp_steps)) for name, g in groups.items()}
    rows.append(("DDP step", 0, times))
    compute = {wrap: agreed(time_ddp_step(dist.group.WORLD, args.ddp_steps, wrap))
               for wrap in ("none", "barrier", "no-op hook")}
    if dist.get_rank() == 0:
        print(f"np {n}, torch {torch.__version__}, median of {args.reps} reps")
        print("| np | operation | nexar | gloo | nexar busbw | gloo busbw | busbw ratio (time ratio) "
              "| libnexar from C |")
        print("|---|---|---|---|---|---|---|---|")
        for label, nbytes, t in rows:
            ratio = t["gloo"] / t["nexar"]
            if nbytes:
                bw = {k: 2 * (n - 1) / n * nbytes / v / 1e9 for k, v in t.items()}
                print(f"| {n} | {label} | {t['nexar'] * 1e6:.1f} us | {t['gloo'] * 1e6:.1f} us | "
                      f"{bw['nexar']:.3f} GB/s | {bw['gloo']:.3f} GB/s | {ratio:.1f}x | {t['C'] * 1e6:.1f} us |")
            else:
                print(f"| {n} | {label} | {t['nexar'] * 1e3:.2f} ms | {t['gloo'] * 1e3:.2f} ms | | | "
                      f"{t['nexar'] / t['gloo']:.2f} of gloo's time | |")
        print(f"step without gradient exchange: the model alone {compute['none'] * 1e3:.2f} ms, "
              f"then a barrier {compute['barrier'] * 1e3:.2f} ms, "
              f"DDP with a no-op comm hook {compute['no-op hook'] * 1e3:.2f} ms "
              f"(torch threads {torch.get_num_threads()})")
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
