# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Processes started without nexrun join one world through nexar.get_unique_id /
# nexar.init_rank: this script starts N ranks itself (rank 0 prints the id in hex; the
# driver hands it to the others), each allreduces its rank and prints the sum. Every child
# is bounded; the driver fails on any rank's failure or a wrong sum.
import os
import select
import subprocess
import sys

N = 3
if len(sys.argv) > 1:  # a rank
    import numpy as np
    import nexar
    rank = int(sys.argv[1])
    if rank == 0:
        uid = nexar.get_unique_id()
        print(uid.hex(), flush=True)
    else:
        uid = bytes.fromhex(os.environ["NEXAR_TEST_UID"])
    comm = nexar.init_rank(uid, rank, N)
    assert nexar.COMM_WORLD is comm and comm.Get_size() == N and comm.Get_rank() == rank
    out = np.zeros(1, np.int64)
    comm.Allreduce(np.array([rank + 1], np.int64), out)
    print(f"rank {rank} sum {out[0]}", flush=True)
    sys.exit(0)

env = dict(os.environ, NEXAR_TIMEOUT="30", NEXAR_CONNECT_TIMEOUT="30")
for k in ("NEXAR_RANK", "NEXAR_WORLD_SIZE", "NEXAR_RENDEZVOUS", "WORLD_SIZE", "RANK"):
    env.pop(k, None)
first = subprocess.Popen([sys.executable, __file__, "0"], stdout=subprocess.PIPE, text=True, env=env)
if not select.select([first.stdout], [], [], 60)[0]:
    first.kill()
    sys.exit("rank 0 printed no id in 60 s")
uid = first.stdout.readline().strip()
if len(uid) != 1024:
    first.kill()
    sys.exit(f"rank 0 printed {uid!r}, not a 512-byte id in hex")
env["NEXAR_TEST_UID"] = uid
others = [subprocess.Popen([sys.executable, __file__, str(r)], stdout=subprocess.PIPE, text=True, env=env)
          for r in range(1, N)]
want = N * (N + 1) // 2
ok = True
for r, p in enumerate([first] + others):
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        print(f"rank {r} did not finish in 60 s")
        ok = False
        continue
    if p.returncode != 0 or f"rank {r} sum {want}" not in out:
        print(f"rank {r}: exit {p.returncode}, output {out!r}")
        ok = False
print("uid_start ok" if ok else "uid_start FAILED")
sys.exit(0 if ok else 1)
