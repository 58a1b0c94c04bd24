# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The package nexar's non-blocking methods, per-rank counts and Sendrecv under nexrun (any
# np >= 2): every I-form gives what its blocking form gives, started together and finished
# by Waitall / Wait / Test; the v-collectives exact with gaps, reversed displacements and in
# place; Sendrecv around a ring; Iprobe; a failed request raising at its Wait; a request
# dropped before it completed still delivering; and each refusal named. Prints
# "requests_check ok".
import sys
import time

import numpy as np

import nexar
from checks import data, expect_equal, refused

comm = nexar.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

# --- every non-blocking collective beside its blocking form, all started before any wait ---
n = 6
mine = data(rank, n)
blocks = np.concatenate([data(rank, n, salt=b) for b in range(size)])
cases = {  # name: how to call it (blocking or not) into an output of n * size elements
    "Allreduce": lambda f, out: f(mine, out[:n], op=nexar.MAX),
    "Scan": lambda f, out: f(mine, out[:n]),
    "Exscan": lambda f, out: f(mine, out[:n]) if rank > 0 else f(mine, np.zeros(n)),
    "Reduce": lambda f, out: f(mine, out[:n], op=nexar.SUM, root=size - 1),
    "Reduce_scatter_block": lambda f, out: f(blocks, out[:n]),
    "Allgather": lambda f, out: f(mine, out),
    "Alltoall": lambda f, out: f(blocks, out),
    "Gather": lambda f, out: f(mine, out, root=1),
    "Scatter": lambda f, out: f(blocks if rank == 0 else None, out[:n], root=0),
    "Bcast": lambda f, out: f(out, root=1),
}
want, got, reqs = {}, {}, []
for name, use in cases.items():
    want[name] = np.full(n * size, 5.0) if name == "Bcast" and rank == 1 else np.zeros(n * size)
    if name == "Bcast" and rank == 1:
        want[name][:] = data(1, n * size)
    use(getattr(comm, name), want[name])
for name, use in cases.items():
    got[name] = want[name].copy() if name == "Bcast" and rank == 1 else np.zeros(n * size)
    if name == "Bcast" and rank != 1:
        got[name][:] = -1
    reqs.append(use(getattr(comm, "I" + name[0].lower() + name[1:]), got[name]))
reqs.append(comm.Ibarrier())
assert all(isinstance(r, nexar.Request) for r in reqs), reqs
results = nexar.Request.Waitall(reqs)
assert results == [None] * len(reqs), results
for name in cases:
    if name == "Exscan" and rank == 0:
        continue  # rank 0's result is undefined
    expect_equal(got[name], want[name], "I" + name)
assert all(not r.pending for r in reqs) and reqs[0].Wait() is None and reqs[0].Test()

# --- point to point: Isend / Irecv with the message's status, Test, Iprobe, Sendrecv ---
box = np.zeros(4, np.int32)
rr = comm.Irecv(box, left, tag=5)
assert rr.pending
sr = comm.Isend(np.full(4, rank, np.int32), right, tag=5)
assert rr.Wait() == (left, 5, 16)
expect_equal(box, np.full(4, left, np.int32), "Irecv")
sr.Wait()
late = np.zeros(3, np.int64)
rr = comm.Irecv(late, nexar.ANY_SOURCE, tag=6)
assert rr.Test() is False  # nobody has sent it yet: every rank waits below first
comm.Barrier()
comm.Send(np.arange(3, dtype=np.int64) + rank, right, tag=6)
deadline = time.monotonic() + 30
while not rr.Test():
    assert time.monotonic() < deadline, "Test never saw the message"
expect_equal(late, np.arange(3, dtype=np.int64) + left, "Irecv by Test")
assert comm.Iprobe(left, tag=7) is None
comm.Barrier()
comm.Send(bytearray(b"probe me"), right, tag=7)
while (st := comm.Iprobe(left, tag=7)) is None:
    assert time.monotonic() < deadline, "Iprobe never saw the message"
assert st == (left, 7, 8), st
buf = bytearray(8)
comm.Recv(buf, left, 7)
assert buf == b"probe me"
got_sr = np.zeros(5, np.float32)  # everyone sends right and receives from the left at once
assert comm.Sendrecv(np.full(5, rank, np.float32), right, 9, got_sr, left, 9) == (left, 9, 20)
expect_equal(got_sr, np.full(5, left, np.float32), "Sendrecv")

# --- per-rank counts: rank i contributes i + 1 elements ---
counts = [i + 1 for i in range(size)]
total = sum(counts)
everyone = [data(i, counts[i], np.int32) for i in range(size)]
packed = np.concatenate(everyone)
out = np.zeros(total, np.int32)
comm.Allgatherv(everyone[rank], [out, counts])
expect_equal(out, packed, "Allgatherv")
# Reversed blocks with a gap of 2 between them: the gaps are never written.
displs, at = [0] * size, 0
for i in reversed(range(size)):
    displs[i] = at
    at += counts[i] + 2
spaced = np.full(at, -7, np.int32)
inplace = spaced.copy()
inplace[displs[rank]:displs[rank] + counts[rank]] = everyone[rank]
r1 = comm.Iallgatherv(everyone[rank], [spaced, (counts, displs)])
r2 = comm.Iallgatherv(nexar.IN_PLACE, [inplace, counts, displs])
nexar.Request.Waitall([r1, r2])
want_spaced = np.full(at, -7, np.int32)
for i in range(size):
    want_spaced[displs[i]:displs[i] + counts[i]] = everyone[i]
expect_equal(spaced, want_spaced, "Iallgatherv with displs")
expect_equal(inplace, want_spaced, "Iallgatherv IN_PLACE")
for root in range(size):
    g = np.zeros(total, np.int32) if rank == root else None
    comm.Gatherv(everyone[rank], [g, counts] if rank == root else None, root=root)
    if rank == root:
        expect_equal(g, packed, f"Gatherv root {root}")
    part = np.zeros(counts[rank], np.int32)
    comm.Scatterv([packed, counts] if rank == root else None, part, root=root)
    expect_equal(part, everyone[rank], f"Scatterv root {root}")
    if rank == root:  # in place at the root: its own block stays where it is
        g = np.zeros(total, np.int32)
        g[sum(counts[:rank]):sum(counts[:rank + 1])] = everyone[rank]
        comm.Igatherv(nexar.IN_PLACE, [g, counts], root=root).Wait()
        expect_equal(g, packed, f"Igatherv IN_PLACE root {root}")
        comm.Iscatterv([packed, counts], nexar.IN_PLACE, root=root).Wait()
    else:
        comm.Igatherv(everyone[rank], None, root=root).Wait()
        part = np.zeros(counts[rank], np.int32)
        comm.Iscatterv(None, part, root=root).Wait()
        expect_equal(part, everyone[rank], f"Iscatterv root {root}")
# Alltoallv: rank r sends j + 1 elements to rank j (valued 100 r + j); receives r + 1 from each.
scounts = [j + 1 for j in range(size)]
send = np.concatenate([np.full(j + 1, 100 * rank + j, np.int64) for j in range(size)])
rcounts = [rank + 1] * size
want_a2a = np.concatenate([np.full(rank + 1, 100 * i + rank, np.int64) for i in range(size)])
recv = np.zeros(size * (rank + 1), np.int64)
comm.Alltoallv([send, scounts], [recv, rcounts])
expect_equal(recv, want_a2a, "Alltoallv")
recv2 = np.zeros_like(recv)
comm.Ialltoallv([send, scounts], [recv2, rcounts]).Wait()
expect_equal(recv2, want_a2a, "Ialltoallv")
# Reduce_scatter: rank i gets counts[i] elements, the sum over ranks.
contrib = np.concatenate([data(rank, counts[i], np.float32, salt=i) for i in range(size)])
mine_rs = np.zeros(counts[rank], np.float32)
comm.Reduce_scatter(contrib, mine_rs, counts)
want_rs = sum(data(r, counts[rank], np.float32, salt=rank) for r in range(size)).astype(np.float32)
expect_equal(mine_rs, want_rs, "Reduce_scatter")
whole = contrib.copy()
comm.Ireduce_scatter(nexar.IN_PLACE, whole, counts).Wait()
expect_equal(whole[:counts[rank]], want_rs, "Ireduce_scatter IN_PLACE")
# Reduce_scatter_block in place: recvbuf holds every rank's block, the result lands first.
rsb = np.concatenate([data(rank, 3, np.float64, salt=b) for b in range(size)])
comm.Reduce_scatter_block(nexar.IN_PLACE, rsb)
expect_equal(rsb[:3], sum(data(r, 3, np.float64, salt=rank) for r in range(size)), "Reduce_scatter_block IN_PLACE")

# --- a receive too short fails at its Wait, naming the sizes; the communicator goes on ---
if rank == 0:
    comm.Send(np.zeros(8, np.int32), 1, tag=11)
elif rank == 1:
    short = comm.Irecv(np.zeros(4, np.int32), 0, tag=11)
    try:
        short.Wait()
        sys.exit("rank 1: a receive shorter than its message completed")
    except nexar.Error as e:
        assert e.name == "NEXAR_ERR_INVALID_ARGUMENT" and "Recv" in str(e), e
    assert not short.pending
comm.Barrier()

# --- a request dropped before it completed is waited for: its buffer is written first ---
if rank == 0:
    kept = np.zeros(2, np.float64)
    r = comm.Irecv(kept, 1, tag=12)
    del r  # rank 1 sends 0.3 s later: the drop waits for it (and says so on stderr)
    expect_equal(kept, np.array([1.0, 1.5]), "a dropped Irecv")
elif rank == 1:
    time.sleep(0.3)
    comm.Send(np.array([1.0, 1.5]), 0, tag=12)
comm.Barrier()


# --- refusals, each local and named: no rank is left waiting ---
i32 = np.zeros(total, np.int32)
refused(TypeError, lambda: comm.Allgatherv(everyone[rank], i32), "Allgatherv: recvbuf must be [buffer, counts]")
refused(TypeError, lambda: comm.Allgatherv(everyone[rank], [i32, counts, None, 1]), "not a list of 4")
refused(ValueError, lambda: comm.Allgatherv(everyone[rank], [i32, counts[:-1]]),
        f"recvbuf's counts has {size - 1} entries; the communicator has {size}")
refused(ValueError, lambda: comm.Iallgatherv(everyone[rank], [i32, [-1] + counts[1:]]), "recvbuf's counts[0] is -1")
refused(ValueError, lambda: comm.Allgatherv(everyone[rank], [i32, counts, [total] * size]),
        "block 0 (displacement", "ends past its")
refused(TypeError, lambda: comm.Alltoallv([send, "ab"], [recv, rcounts]), "sendbuf's counts is a str")
refused(ValueError, lambda: comm.Alltoallv([send.astype(np.int32), scounts], [recv, rcounts]),
        "sendbuf holds int32", "recvbuf int64")
refused(ValueError, lambda: comm.Reduce_scatter(contrib, np.zeros(counts[rank] + 1, np.float32), counts),
        "recvbuf has", "recvcounts[rank]")
refused(ValueError, lambda: comm.Reduce_scatter_block(nexar.IN_PLACE, np.zeros(size * 3 + 1)), "equal blocks")
refused(ValueError, lambda: comm.Sendrecv(mine, right, 0, None, left, 0), "Sendrecv: recvbuf is None")
refused(ValueError, lambda: comm.Ibcast(np.zeros(2), root=size), f"Bcast: root {size} is not a rank")
refused(TypeError, lambda: nexar.Request.Waitall([comm]), "is not a nexar.Request")
refused(nexar.Error, lambda: comm.Isend(mine, size + 3), "Send", "NEXAR_ERR_INVALID_ARGUMENT")
comm.Barrier()  # still usable after the refusals
print("requests_check ok", flush=True)
