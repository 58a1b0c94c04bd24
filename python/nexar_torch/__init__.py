# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""nexar's PyTorch distributed backend.

``import nexar_torch`` registers the backend "nexar" with torch.distributed::

    import nexar_torch, torch.distributed as dist
    dist.init_process_group("nexar")          # under nexrun

Under a nexar launcher (nexrun, or srun where libnexar joins by itself) the world group is
the launcher's world, and later groups of the whole world duplicate it (docs/torch.md).
"""
import os
from datetime import timedelta

import torch.distributed as _dist

from . import _C  # noqa: F401  (loads libnexar and the process group)

__all__ = ["BACKEND"]

BACKEND = "nexar"


def _launcher_world(rank, size, ranks):
    """True when the group is exactly the launcher's world, in its order."""
    try:
        env_rank = int(os.environ["NEXAR_RANK"])
        env_size = int(os.environ["NEXAR_WORLD_SIZE"])
    except (KeyError, ValueError):
        return False
    return env_size == size and env_rank == rank and list(ranks) == list(range(size))


def _create(opts, pg_options):
    if pg_options is not None:
        raise RuntimeError("nexar backend: process group options are not supported")
    rank, size = opts.group_rank, opts.group_size
    ranks = list(opts.global_ranks_in_group) or list(range(size))  # [] for the default group
    timeout = opts.timeout if isinstance(opts.timeout, timedelta) else timedelta(seconds=float(opts.timeout))
    if _launcher_world(rank, size, ranks):
        return _C._from_launcher(timeout)
    raise RuntimeError(
        "nexar backend: this group needs a nexar unique id (group ranks "
        f"{ranks}, rank {rank} of {size}), which this build cannot make yet; start under nexrun "
        "and use groups of the whole world")


_dist.Backend.register_backend(BACKEND, _create, extended_api=True)
