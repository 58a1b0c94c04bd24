# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""new_group of some of the ranks (several, overlapping, ranks left out), receives from any
source, and batch_isend_irecv, exact, on the "nexar" backend with 4 or more ranks (under
nexrun or torchrun: a subgroup is a split of the world's communicator either way)."""
import ctypes
import time

import torch
import torch.distributed as dist

import nexar_torch

from common import done, init

rank, n = init()
assert n >= 4, "needs 4 ranks or more"


def group_sum(members, base=1.0):
    return float(sum(r + base for r in members))


def check_allreduce(group, members):
    t = torch.full((6,), float(rank) + 1.0)
    dist.all_reduce(t, group=group)
    expect = group_sum(members) if rank in members else float(rank) + 1.0  # left out: untouched
    assert torch.equal(t, torch.full((6,), expect)), f"group {members}: {t}, expected {expect}"


evens, odds = list(range(0, n, 2)), list(range(1, n, 2))
head, tail = list(range(0, n - 1)), list(range(1, n))  # overlapping: 1 .. n-2 are in both
g_evens, g_odds = dist.new_group(evens), dist.new_group(odds)
g_head, g_tail = dist.new_group(head), dist.new_group(tail)
for g, members in ((g_evens, evens), (g_odds, odds), (g_head, head), (g_tail, tail)):
    check_allreduce(g, members)
    assert (dist.get_world_size(g) == len(members)) == (rank in members)
    if rank in members:
        assert nexar_torch._C._origin(g) == "a split of the world", nexar_torch._C._origin(g)
# torch's module-level new_group (what new_subgroups calls; it needs CUDA in torch 1.13) splits too.
pair = dist.distributed_c10d.new_group([0, 1])
if rank < 2:
    assert nexar_torch._C._origin(pair) == "a split of the world" and dist.get_world_size(pair) == 2
    check_allreduce(pair, [0, 1])
assert nexar_torch._C._origin(dist.new_group()) == "a duplicate of the world"

# libnexar's C API on a group's communicator (_C._comm_handle, as tools/torch_bench.py uses
# it): nexar_allreduce through ctypes on the odd ranks' split sums over the odd ranks.
if rank in odds:
    lib = ctypes.CDLL(nexar_torch._C.__file__)
    t = torch.full((6,), float(rank) + 1.0)
    rc = lib.nexar_allreduce(ctypes.c_void_p(t.data_ptr()), ctypes.c_void_p(t.data_ptr()), ctypes.c_size_t(6),
                             8, 0, ctypes.c_void_p(nexar_torch._C._comm_handle(g_odds)))  # float32, SUM
    assert rc == 0 and torch.equal(t, torch.full((6,), group_sum(odds))), (rc, t)
try:
    nexar_torch._C._comm_handle(dist.new_group(backend="gloo"))
    raise AssertionError("_comm_handle took a gloo group")
except RuntimeError as e:
    assert "not a nexar process group (backend gloo)" in str(e), e

# Both overlapping groups in flight at once on the ranks in both.
mine = [(g, m) for g, m in ((g_head, head), (g_tail, tail)) if rank in m]
bufs = [torch.full((1000,), float(rank)) for _ in mine]
works = [dist.all_reduce(b, group=g, async_op=True) for b, (g, _) in zip(bufs, mine)]
for w, b, (_, m) in zip(works, bufs, mine):
    w.wait()
    assert torch.equal(b, torch.full((1000,), group_sum(m, 0.0))), (m, b[:4])

# Broadcast and point to point inside a group: torch passes group ranks, we name global ones.
if rank in odds:
    b = torch.arange(5.0) * odds[-1] if rank == odds[-1] else torch.zeros(5)
    dist.broadcast(b, odds[-1], group=g_odds)
    assert torch.equal(b, torch.arange(5.0) * odds[-1]), b
    i = odds.index(rank)
    right, left = odds[(i + 1) % len(odds)], odds[(i - 1) % len(odds)]
    got = torch.zeros(3)
    s = dist.isend(torch.full((3,), float(rank)), right, group=g_odds)
    dist.recv(got, left, group=g_odds)
    s.wait()
    assert torch.equal(got, torch.full((3,), float(left))), got

# Receives from any source: the sender comes back with the data, blocking and async. A tag
# of their own: a later message to rank 0 with the same tag could match them first.
if rank == 0:
    seen = set()
    for _ in range(n - 1):
        t = torch.zeros(4)
        src = dist.recv(t, tag=7)
        assert torch.equal(t, torch.full((4,), float(src))), (src, t)
        seen.add(src)
    assert seen == set(range(1, n)), seen
else:
    dist.send(torch.full((4,), float(rank)), 0, tag=7)
if rank in tail:  # any source inside a group: torch maps the sender back to its global rank
    if rank == tail[0]:
        t = torch.zeros(2)
        w = dist.irecv(t, group=g_tail)
        deadline = time.monotonic() + 30
        while not w.is_completed():  # polling works too
            assert time.monotonic() < deadline, "irecv from any source never completed"
            time.sleep(0.001)
        w.wait()
        assert torch.equal(t, torch.full((2,), float(tail[-1]))) and w._source_rank() == len(tail) - 1, t
    elif rank == tail[-1]:
        dist.send(torch.full((2,), float(rank)), tail[0], group=g_tail)

# batch_isend_irecv: both neighbours at once, on the world and on a group.
for group, members in ((None, list(range(n))), (g_evens, evens)):
    if rank not in members:
        continue
    i, m = members.index(rank), len(members)
    right, left = members[(i + 1) % m], members[(i - 1) % m]
    from_left, from_right = torch.zeros(300), torch.zeros(300)
    ops = [dist.P2POp(dist.isend, torch.full((300,), float(rank)), right, group),
           dist.P2POp(dist.irecv, from_left, left, group),
           dist.P2POp(dist.isend, torch.full((300,), -float(rank)), left, group),
           dist.P2POp(dist.irecv, from_right, right, group)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    assert torch.equal(from_left, torch.full((300,), float(left))), from_left[:3]
    assert torch.equal(from_right, torch.full((300,), -float(right))), from_right[:3]

for g in (g_evens, g_odds, g_head, g_tail):
    if g != dist.GroupMember.NON_GROUP_MEMBER:
        dist.barrier(group=g)
done("torch_groups")
