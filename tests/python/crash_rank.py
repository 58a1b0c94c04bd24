# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Rank 1 dies of an uncaught exception while rank 0 waits in a barrier: the package aborts
# rank 1's world at exit instead of freeing it (whose closing barrier would have met rank
# 0's and let it go on as if nothing happened), so rank 0's barrier fails at once.
import time

import nexar

comm = nexar.COMM_WORLD
comm.Barrier()
if comm.Get_rank() == 1:
    raise RuntimeError("rank 1 fails on purpose")
t0 = time.monotonic()
try:
    comm.Barrier()
    print("rank 0: the barrier returned although rank 1 died", flush=True)
except nexar.Error as e:
    print(f"rank 0: the barrier failed after {time.monotonic() - t0:.1f} s: {e.name}", flush=True)
