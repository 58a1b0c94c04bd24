# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""nexar's PyTorch distributed backend.

``import nexar_torch`` registers the backend "nexar" with torch.distributed::

    import nexar_torch, torch.distributed as dist
    dist.init_process_group("nexar")          # under nexrun, torchrun, or with any store

Under a nexar launcher (nexrun, or srun where libnexar joins by itself) the world group is
the launcher's world. Otherwise the group's rank 0 makes a nexar unique id and passes it
through torch's store. Groups of some of the ranks are split from the world's communicator
(sharing its connections and shared memory) when the default group is nexar's, else they
join by a unique id too; later groups of the whole world duplicate the world's
communicator (docs/torch.md).
"""
import atexit
import functools
import os
from datetime import timedelta

import torch.distributed as _dist
from torch.distributed import distributed_c10d as _c10d

from . import _C  # noqa: F401  (loads libnexar and the process group)

# Completion threads stop before the interpreter finalizes (work.h, Completer::stop_all).
atexit.register(_C._stop_completers)

__all__ = ["BACKEND"]

BACKEND = "nexar"


def _launcher_world(rank, size):
    """True when the launcher's world (nexrun) is the default group's, rank for rank."""
    try:
        env_rank = int(os.environ["NEXAR_RANK"])
        env_size = int(os.environ["NEXAR_WORLD_SIZE"])
    except (KeyError, ValueError):
        return False
    return env_size == size and env_rank == rank


def _join_by_store(opts, ranks, timeout, whole):
    """Group rank 0 makes a unique id and puts it in the group's store; the others wait for it
    (up to the group's timeout) and every member joins with nexar_init_rank."""
    store, rank, size = opts.store, opts.group_rank, opts.group_size
    # A store may outlive a group of the same name (destroy_process_group, then a new one):
    # each member counts its own joins, so the n-th group uses the n-th id.
    n = store.add(f"nexar/joins/rank{rank}", 1)
    key = f"nexar/unique_id/{n}"
    if rank == 0:
        uid = _C._unique_id()
        store.set(key, uid)
    else:
        try:
            store.wait([key], timeout)
        except RuntimeError as e:
            raise RuntimeError(
                f"nexar backend: group {opts.group_id!r} (global ranks {ranks}): rank {rank} waited "
                f"{timeout.total_seconds():g} s for the store key {key!r}, which group rank 0 "
                f"(global rank {ranks[0]}) writes when it creates the group; rank {ranks[0]} never "
                f"arrived ({str(e).strip()})") from None
        uid = store.get(key)
    return _C._from_unique_id(uid, rank, size, timeout, whole)


# The group new_group split from the world on this rank, for _create to hand to torch:
# (sorted global ranks, group), or None.
_split = None


def _create(opts, pg_options):
    global _split
    if pg_options is not None:
        raise RuntimeError("nexar backend: process group options are not supported")
    rank, size = opts.group_rank, opts.group_size
    default_group = not opts.global_ranks_in_group
    ranks = list(range(size)) if default_group else list(opts.global_ranks_in_group)
    whole = default_group or ranks == list(range(_dist.get_world_size()))
    timeout = opts.timeout if isinstance(opts.timeout, timedelta) else timedelta(seconds=float(opts.timeout))
    if whole and _C._has_world():
        return _C._dup_world(timeout)
    if _split is not None and _split[0] == ranks:
        group, _split = _split[1], None
        return group
    if default_group and _launcher_world(rank, size):
        return _C._from_launcher(timeout)
    return _join_by_store(opts, ranks, timeout, whole)


_torch_new_group = _c10d.new_group


@functools.wraps(_torch_new_group)
def new_group(ranks=None, timeout=_c10d.default_pg_timeout, backend=None, pg_options=None):
    """torch's new_group, which every rank of the world calls while torch calls a backend only
    on the group's members: a nexar group of some of the ranks of a nexar world is split from
    the world here (nexar_comm_split, collective over the world), and torch's call to the
    backend on the members (_create) takes it."""
    global _split
    if (ranks is not None and pg_options is None and _dist.is_initialized() and _C._has_world()
            and (_dist.Backend(backend) if backend else _dist.get_backend()) == BACKEND):
        members = sorted(ranks)
        me = _dist.get_rank()
        if members != list(range(_dist.get_world_size())):
            group = _C._split_world(me in members, me, timeout)
            _split = (members, group) if group is not None else None
    try:
        return _torch_new_group(ranks, timeout, backend, pg_options)
    finally:
        _split = None  # taken by _create, or not used (torch refused the arguments)


_dist.Backend.register_backend(BACKEND, _create, extended_api=True)
# torch.distributed.new_group, and the one new_subgroups calls.
_c10d.new_group = _dist.new_group = new_group
