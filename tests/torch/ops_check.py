# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Every torch.distributed operation on the "nexar" backend, exact against a local reference.

Run under nexrun with any number of ranks: each rank computes what every rank contributed
(value_of) and checks its own results.
"""
import functools
import os

import torch
import torch.distributed as dist

from common import done, expect_error, init, same

rank, n = init()
Op = dist.ReduceOp
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.uint8, torch.int32, torch.int64]


def value_of(r, count, dtype, base=1):
    """Rank r's input: small values so that sums and products are exact in every dtype."""
    if dtype == torch.bool:
        return (torch.arange(count) + r) % 2 == 0
    return ((torch.arange(count) + r) % 3 + base).to(dtype)


def reference(op, count, dtype):
    vals = [value_of(r, count, dtype).to(torch.float64) for r in range(n)]
    stack = torch.stack(vals)
    if dtype == torch.bool:
        b = torch.stack([value_of(r, count, dtype) for r in range(n)])
        return {Op.SUM: b.any(0), Op.MAX: b.any(0), Op.BOR: b.any(0), Op.BXOR: b.sum(0) % 2 == 1,
                Op.PRODUCT: b.all(0), Op.MIN: b.all(0), Op.BAND: b.all(0)}[op]
    if op == Op.SUM:
        out = stack.sum(0)
    elif op == Op.PRODUCT:
        out = stack.prod(0)
    elif op == Op.MIN:
        out = stack.min(0).values
    elif op == Op.MAX:
        out = stack.max(0).values
    elif op == Op.AVG:
        out = stack.sum(0) / n if dtype.is_floating_point else torch.div(stack.sum(0), n, rounding_mode="floor")
    return out.to(dtype)


# all_reduce: every op on every dtype nexar reduces, blocking and async; odd counts.
for dtype in FLOATS + INTS:
    for op in [Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.AVG]:
        for count in [1, 7, 1000]:
            t = value_of(rank, count, dtype)
            dist.all_reduce(t, op=op)
            same(t, reference(op, count, dtype), f"all_reduce {op} {dtype} x{count}")
for op in [Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.BAND, Op.BOR, Op.BXOR]:
    t = value_of(rank, 9, torch.bool)
    dist.all_reduce(t, op=op)
    same(t, reference(op, 9, torch.bool), f"all_reduce {op} bool")
t = value_of(rank, 5, torch.float32)
dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.5))
same(t, reference(Op.SUM, 5, torch.float32) * 0.5, "all_reduce PREMUL_SUM")
t = value_of(rank, 5, torch.complex64)
dist.all_reduce(t)
same(t, sum(value_of(r, 5, torch.complex64) for r in range(n)), "all_reduce complex64")
works = [dist.all_reduce(value_of(rank, 100, torch.float32), async_op=True) for _ in range(4)]
for w in works:
    w.wait()
    same(w.result()[0], reference(Op.SUM, 100, torch.float32), "async all_reduce")

BITWISE = {Op.BAND: torch.bitwise_and, Op.BOR: torch.bitwise_or, Op.BXOR: torch.bitwise_xor}


def bits_of(r, count, dtype):
    """Rank r's input for the bitwise ops: values over every bit of the dtype, sign bit included."""
    info = torch.iinfo(dtype)
    span = info.max - info.min + 1
    return torch.tensor([info.min + (i * 2654435761 + r * 40503 + 977) ** 3 % span for i in range(count)], dtype=dtype)


def bitwise_reference(op, lo, hi, count, dtype, first=0):
    """op over ranks lo..hi-1 of bits_of, elements first..first+count-1."""
    return functools.reduce(BITWISE[op], [bits_of(r, first + count, dtype)[first:] for r in range(lo, hi)])


# BAND / BOR / BXOR on every integer dtype: all_reduce blocking and async (odd counts),
# reduce at every root, reduce_scatter_tensor.
for dtype in INTS:
    for op in BITWISE:
        for count in [1, 7, 1001]:
            t = bits_of(rank, count, dtype)
            dist.all_reduce(t, op=op)
            same(t, bitwise_reference(op, 0, n, count, dtype), f"all_reduce {op} {dtype} x{count}")
        t = bits_of(rank, 9, dtype)
        dist.all_reduce(t, op=op, async_op=True).wait()
        same(t, bitwise_reference(op, 0, n, 9, dtype), f"async all_reduce {op} {dtype}")
        for root in range(n):
            t = bits_of(rank, 5, dtype)
            dist.reduce(t, dst=root, op=op)
            if rank == root:
                same(t, bitwise_reference(op, 0, n, 5, dtype), f"reduce {op} {dtype} root {root}")
        out = torch.zeros(3, dtype=dtype)
        dist.reduce_scatter_tensor(out, bits_of(rank, 3 * n, dtype), op=op)
        same(out, bitwise_reference(op, 0, n, 3, dtype, first=3 * rank), f"reduce_scatter_tensor {op} {dtype}")
# What nexar cannot reduce is refused before anything is sent, naming why: bitwise ops on
# floats (as gloo refuses them), on every rank alike.
OP_NAMES = {Op.BAND: "BAND", Op.BOR: "BOR", Op.BXOR: "BXOR"}
ATEN_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16"}
for dtype in FLOATS:
    for op, name in OP_NAMES.items():
        expect_error(lambda: dist.all_reduce(value_of(rank, 4, dtype), op=op), f"ReduceOp.{name} is bitwise",
                     f"got dtype {ATEN_NAMES[dtype]}")
        expect_error(lambda: dist.reduce(value_of(rank, 4, dtype), dst=0, op=op), f"ReduceOp.{name}", "bitwise")
        expect_error(lambda: dist.reduce_scatter_tensor(torch.zeros(1, dtype=dtype), value_of(rank, n, dtype), op=op),
                     f"ReduceOp.{name}", "bitwise")
t = bits_of(rank, 6, torch.int64)
dist.all_reduce(t, op=Op.BXOR)  # every rank refused alike: the group still matches
same(t, bitwise_reference(Op.BXOR, 0, n, 6, torch.int64), "all_reduce BXOR after the refusals")
expect_error(lambda: dist.all_reduce(value_of(rank, 4, torch.int16)), "cannot reduce dtype", "Short")
expect_error(lambda: dist.all_reduce(value_of(rank, 8, torch.float32)[::2]), "contiguous")

# broadcast and reduce from every root; any dtype moves as bytes.
for root in range(n):
    for dtype in [torch.float16, torch.int16, torch.bool, torch.complex128]:
        t = value_of(rank, 33, dtype)
        dist.broadcast(t, src=root)
        same(t, value_of(root, 33, dtype), f"broadcast {dtype} root {root}")
    t = value_of(rank, 17, torch.int64)
    dist.reduce(t, dst=root, op=Op.MAX)
    if rank == root:
        same(t, reference(Op.MAX, 17, torch.int64), f"reduce root {root}")

# all_gather (list and into one tensor), gather and scatter.
for dtype in [torch.float32, torch.bfloat16, torch.int16]:
    t = value_of(rank, 10, dtype).reshape(2, 5)
    outs = [torch.zeros(2, 5, dtype=dtype) for _ in range(n)]
    dist.all_gather(outs, t)
    for r in range(n):
        same(outs[r], value_of(r, 10, dtype).reshape(2, 5), f"all_gather {dtype} from {r}")
    flat = torch.zeros(n * 2, 5, dtype=dtype)
    dist.all_gather_into_tensor(flat, t)
    same(flat, torch.cat([value_of(r, 10, dtype).reshape(2, 5) for r in range(n)]), "all_gather_into_tensor")
root = n - 1
gl = [torch.zeros(6, dtype=torch.float64) for _ in range(n)] if rank == root else None
dist.gather(value_of(rank, 6, torch.float64), gather_list=gl, dst=root)
if rank == root:
    for r in range(n):
        same(gl[r], value_of(r, 6, torch.float64), f"gather from {r}")
out = torch.zeros(4, dtype=torch.int32)
sl = [value_of(r, 4, torch.int32, base=10 * r) for r in range(n)] if rank == 0 else None
dist.scatter(out, scatter_list=sl, src=0)
same(out, value_of(rank, 4, torch.int32, base=10 * rank), "scatter")

# reduce_scatter (list and one tensor).
for dtype in [torch.float32, torch.float16, torch.int64]:
    ins = [value_of(rank, 3, dtype, base=r) for r in range(n)]
    out = torch.zeros(3, dtype=dtype)
    dist.reduce_scatter(out, ins)
    same(out, sum(value_of(r, 3, dtype, base=rank) for r in range(n)).to(dtype), f"reduce_scatter {dtype}")
    out = torch.zeros(3, dtype=dtype)
    dist.reduce_scatter_tensor(out, torch.cat(ins), op=Op.MAX)
    expected = torch.stack([value_of(r, 3, dtype, base=rank) for r in range(n)]).max(0).values
    same(out, expected, f"reduce_scatter_tensor MAX {dtype}")

# all_to_all: equal and uneven (rank i sends i + j + 1 rows to rank j), lists and one tensor.
t = torch.arange(n * 4, dtype=torch.float32) + 100 * rank
out = torch.zeros(n * 4)
dist.all_to_all_single(out, t)
same(out, torch.cat([torch.arange(4 * rank, 4 * rank + 4, dtype=torch.float32) + 100 * r for r in range(n)]),
     "all_to_all_single equal")


def rows(i, j):
    """The rows rank i sends rank j: i + j + 1 rows of 3 values naming both."""
    return torch.full((i + j + 1, 3), float(10 * i + j))


send = torch.cat([rows(rank, j) for j in range(n)])
recv = torch.zeros(sum(i + rank + 1 for i in range(n)), 3)
dist.all_to_all_single(recv, send, output_split_sizes=[i + rank + 1 for i in range(n)],
                       input_split_sizes=[rank + j + 1 for j in range(n)])
same(recv, torch.cat([rows(i, rank) for i in range(n)]), "all_to_all_single uneven")
outs = [torch.zeros(i + rank + 1, 3) for i in range(n)]
dist.all_to_all(outs, [rows(rank, j) for j in range(n)])
for i in range(n):
    same(outs[i], rows(i, rank), f"all_to_all from {i}")

# send/recv around a ring, with tags; isend/irecv overlapping.
right, left = (rank + 1) % n, (rank - 1) % n
if n > 1:
    got = torch.zeros(5, dtype=torch.int64)
    if rank % 2 == 0:
        dist.send(value_of(rank, 5, torch.int64), dst=right, tag=7)
        dist.recv(got, src=left, tag=7)
    else:
        dist.recv(got, src=left, tag=7)
        dist.send(value_of(rank, 5, torch.int64), dst=right, tag=7)
    same(got, value_of(left, 5, torch.int64), "send/recv")
    got = torch.zeros(64, dtype=torch.float16)
    reqs = [dist.irecv(got, src=left, tag=3), dist.isend(value_of(rank, 64, torch.float16), dst=right, tag=3)]
    for q in reqs:
        q.wait()
    same(got, value_of(left, 64, torch.float16), "isend/irecv")
    expect_error(lambda: dist.send(torch.zeros(1), dst=right, tag=-1), "nexar send failed", "NEXAR_ERR_INVALID_ARGUMENT")

# barrier, async
dist.barrier()
w = dist.barrier(async_op=True)
w.wait()
assert w.is_completed()

# The backend's threads carry names (profiles and /proc tell them apart): the starter runs
# since the first collective, a group's completer since its first Future.
dist.all_reduce(torch.ones(1), async_op=True).get_future().wait()
names = {open(f"/proc/self/task/{tid}/comm").read().strip() for tid in os.listdir("/proc/self/task")}
assert {"nexar-starter", "nexar-complete"} <= names, f"no nexar-starter or nexar-complete among {sorted(names)}"

# An async collective this rank does not look at starts anyway (the starter thread): rank
# 0 waits outside nexar (torch's store) for the other ranks, who finish the all_reduce
# first; unstarted on rank 0, theirs would never end.
store = dist.distributed_c10d._get_default_store()
t = value_of(rank, 10, torch.float32)
if rank == 0:
    w = dist.all_reduce(t, async_op=True)
    store.wait([f"ops_check/reduced{r}" for r in range(1, n)])
    w.wait()
else:
    dist.all_reduce(t)
    store.set(f"ops_check/reduced{rank}", "1")
same(t, reference(Op.SUM, 10, torch.float32), "async all_reduce started by the starter thread")

# A Work dropped before its collective ends keeps the tensor nexar writes alive until nexar
# is done (the group's completer thread finishes it): rank 0 starts an all_reduce of a
# tensor only the Work holds (4 MiB: freed, its pages go back to the system), drops the
# Work, and only then do the other ranks join. nexar writing into the freed tensor would
# crash rank 0 or land in the tensors it allocates next.
if rank == 0:
    w = dist.all_reduce(torch.ones(1 << 20), async_op=True)
    assert not w.is_completed()  # started now; the other ranks have not joined
    del w
    fillers = [torch.zeros(1 << 20) for _ in range(4)]
    store.set("ops_check/dropped", "1")
else:
    store.wait(["ops_check/dropped"])
    dist.all_reduce(torch.ones(1 << 20))
t = value_of(rank, 1 << 20, torch.float32)
dist.all_reduce(t)
same(t, reference(Op.SUM, 1 << 20, torch.float32), "all_reduce after one dropped undone")
if rank == 0:
    assert all(torch.count_nonzero(f) == 0 for f in fillers), "the dropped all_reduce wrote into later tensors"

done("torch_ops")
