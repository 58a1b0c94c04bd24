# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The package nexar under nexrun (any np >= 2): every buffer method exact against a
# result computed here, for every dtype numpy and nexar share, in place and not, every
# root; split / dup / free; point to point with probe; picklable objects; and each
# refusal raised by name on every rank, no rank left waiting. Prints "mpi_check ok".
import sys

import numpy as np

import nexar
from checks import data, expect_equal, refused

comm = nexar.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
assert (comm.rank, comm.size) == (rank, size)
DTYPES = [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64]

# Reductions: every op that applies to the dtype, odd counts.
for dt in DTYPES:
    ints = np.issubdtype(dt, np.integer)
    n = 13
    mine = data(rank, n, dt)
    everyone = [data(r, n, dt) for r in range(size)]
    folds = {nexar.SUM: np.add, nexar.MIN: np.minimum, nexar.MAX: np.maximum}
    if ints:
        folds.update({nexar.BAND: np.bitwise_and, nexar.BOR: np.bitwise_or, nexar.BXOR: np.bitwise_xor})
    for op, f in folds.items():
        want = everyone[0].copy()
        for x in everyone[1:]:
            want = f(want, x).astype(dt)
        out = np.zeros(n, dt)
        comm.Allreduce(mine, out, op=op)
        expect_equal(out, want, f"Allreduce {dt.__name__} {op}")
        inplace = mine.copy()
        comm.Allreduce(nexar.IN_PLACE, inplace, op=op)
        expect_equal(inplace, want, f"Allreduce IN_PLACE {dt.__name__} {op}")
        for root in range(size):
            red = np.zeros(n, dt) if rank == root else None
            comm.Reduce(mine, red, op=op, root=root)
            if rank == root:
                expect_equal(red, want, f"Reduce {dt.__name__} {op} root {root}")
    # Scan / Exscan (sum), Reduce_scatter_block (sum).
    prefix = np.zeros(n, dt)
    for r in range(rank + 1):
        prefix = (prefix + everyone[r]).astype(dt)
    out = np.zeros(n, dt)
    comm.Scan(mine, out)
    expect_equal(out, prefix, f"Scan {dt.__name__}")
    if rank > 0:
        ex = np.zeros(n, dt)
        comm.Exscan(mine, ex)
        expect_equal(ex, (prefix - mine).astype(dt), f"Exscan {dt.__name__}")
    else:
        comm.Exscan(mine, np.zeros(n, dt))  # rank 0's result is the identity: not checked
    blocks = np.concatenate([data(rank, 3, dt, salt=b) for b in range(size)])
    rs = np.zeros(3, dt)
    comm.Reduce_scatter_block(blocks, rs)
    want = np.zeros(3, dt)
    for r in range(size):
        want = (want + data(r, 3, dt, salt=rank)).astype(dt)
    expect_equal(rs, want, f"Reduce_scatter_block {dt.__name__}")

# Data movement, typed and as raw bytes.
for dt in (np.float32, np.int64, np.uint8):
    n = 5
    mine = data(rank, n, dt)
    gathered = np.zeros(n * size, dt)
    comm.Allgather(mine, gathered)
    expect_equal(gathered, np.concatenate([data(r, n, dt) for r in range(size)]), f"Allgather {dt.__name__}")
    g2 = np.zeros(n * size, dt)
    g2[rank * n:(rank + 1) * n] = mine
    comm.Allgather(nexar.IN_PLACE, g2)
    expect_equal(g2, gathered, "Allgather IN_PLACE")
    send = np.concatenate([data(rank, n, dt, salt=b) for b in range(size)])
    got = np.zeros(n * size, dt)
    comm.Alltoall(send, got)
    expect_equal(got, np.concatenate([data(r, n, dt, salt=rank) for r in range(size)]), "Alltoall")
    for root in range(size):
        b = data(root, n, dt) if rank == root else np.zeros(n, dt)
        comm.Bcast(b, root=root)
        expect_equal(b, data(root, n, dt), f"Bcast root {root}")
        out = np.zeros(n * size, dt) if rank == root else None
        comm.Gather(mine, out, root=root)
        if rank == root:
            expect_equal(out, gathered, f"Gather root {root}")
        part = np.zeros(n, dt)
        comm.Scatter(np.concatenate([data(r, n, dt, salt=9) for r in range(size)]) if rank == root else None,
                     part, root=root)
        expect_equal(part, data(rank, n, dt, salt=9), f"Scatter root {root}")
raw = bytearray(b"r%d" % rank)
allraw = bytearray(len(raw) * size)
comm.Allgather(raw, allraw)  # bytes: no numeric format needed to move data
expect_equal(np.frombuffer(allraw, np.uint8), np.frombuffer(b"".join(b"r%d" % r for r in range(size)), np.uint8),
             "Allgather bytearray")

# Point to point around the ring, with probe and the message's status.
right, left = (rank + 1) % size, (rank - 1) % size
if rank % 2 == 0:
    comm.Send(np.full(4, rank, np.int32), right, tag=7)
src, tag, nbytes = comm.Probe(left, 7)
assert (src, tag, nbytes) == (left, 7, 16), (src, tag, nbytes)
box = np.zeros(4, np.int32)
assert comm.Recv(box, nexar.ANY_SOURCE, 7) == (left, 7, 16)
expect_equal(box, np.full(4, left, np.int32), "Recv")
if rank % 2 == 1:
    comm.Send(np.full(4, rank, np.int32), right, tag=7)

# Objects.
assert comm.bcast({"root": "hello"} if rank == 0 else None, root=0) == {"root": "hello"}
assert comm.allgather(("r", rank)) == [("r", r) for r in range(size)]
g = comm.gather(rank * 10, root=size - 1)
assert g == ([r * 10 for r in range(size)] if rank == size - 1 else None), g
assert comm.scatter([f"to {r}" * (r + 1) for r in range(size)] if rank == 0 else None, root=0) == f"to {rank}" * (rank + 1)
assert comm.allreduce(rank + 1) == size * (size + 1) // 2
assert comm.allreduce(rank, op=nexar.MAX) == size - 1
comm.send({"from": rank}, dest=right, tag=3)
assert comm.recv(source=left, tag=3) == {"from": left}

# Split and dup: the halves sum their own ranks; a freed communicator refuses calls.
half = comm.Split(color=rank % 2, key=-rank)
members = [r for r in range(size) if r % 2 == rank % 2]
assert half.Get_size() == len(members) and half.Get_rank() == len(members) - 1 - members.index(rank)
s = np.zeros(1, np.int64)
half.Allreduce(np.array([rank], np.int64), s)
expect_equal(s, np.array([sum(members)], np.int64), "Allreduce on a split")
none = comm.Split(color=nexar.UNDEFINED if rank == 0 else 1)
assert (none is None) == (rank == 0)
twin = comm.Dup()
twin.Barrier()
twin.Free()
try:
    twin.Barrier()
    sys.exit(f"rank {rank}: a freed communicator took a call")
except ValueError as e:
    assert "freed" in str(e), e
half.Free()
if none is not None:
    none.Free()

# Refusals: each names what is wrong; they are local, so every rank raises and none waits.
f5 = np.zeros(5, np.float32)
refused(ValueError, lambda: comm.Allreduce(f5, np.zeros(4, np.float32)), "Allreduce", "5 elements", "recvbuf 4")
refused(ValueError, lambda: comm.Allreduce(f5, np.zeros(5, np.float64)), "sendbuf holds float32", "recvbuf float64")
ro = np.zeros(5, np.float32)
ro.setflags(write=False)
refused(ValueError, lambda: comm.Allreduce(f5, ro), "recvbuf is not writable")
refused(ValueError, lambda: comm.Bcast(ro), "Bcast: buf is not writable")
refused(ValueError, lambda: comm.Allreduce(np.zeros(10, np.float32)[::2], f5), "not C-contiguous")
refused(TypeError, lambda: comm.Allreduce([1.0] * 5, f5), "sendbuf is a list, not a buffer")
refused(TypeError, lambda: comm.Allreduce(np.zeros(5, np.int16), np.zeros(5, np.int16)), "format 'h'")
refused(ValueError, lambda: comm.Bcast(f5, root=size), f"root {size} is not a rank")
refused(ValueError, lambda: comm.Allgather(f5, np.zeros(5, np.float32)), f"recvbuf needs {5 * size}")
refused(ValueError, lambda: comm.Reduce_scatter_block(np.zeros(size + 1, np.float32), np.zeros(1, np.float32)),
        f"sendbuf needs {size} x recvbuf")
refused(nexar.Error, lambda: comm.Allreduce(f5, np.zeros(5, np.float32), op=nexar.BXOR),
        "NEXAR_ERR_INVALID_ARGUMENT", "bitwise")
refused(nexar.Error, lambda: comm.Send(f5, size + 5), "Send", "NEXAR_ERR_INVALID_ARGUMENT")
refused(ValueError, lambda: nexar._core.init_rank(b"short", 0, 2), "the id has 5 bytes, not 512")
refused(RuntimeError, lambda: nexar.init_rank(nexar.get_unique_id(), 0, 2), "already has a world")
try:
    comm.Allreduce(f5, np.zeros(5, np.float32), op=nexar.BXOR)
except nexar.Error as e:
    assert e.code == -1 and e.name == "NEXAR_ERR_INVALID_ARGUMENT" and isinstance(e, RuntimeError), (e.code, e.name)
comm.Barrier()  # still usable after the local refusals
print("mpi_check ok", flush=True)
