# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Runs a test script under torchrun (torch.distributed.run, no nexrun) and checks its output.

    torchrun.py NPROC SCRIPT [--expect TEXT COUNT]... [--env NAME=VALUE]...

Bounded: the whole job (torchrun and every rank, one process group) is killed after
NEXAR_TORCHRUN_TIMEOUT seconds (default 90). Passes when torchrun exits 0, no rank printed a
traceback, and each TEXT occurs exactly COUNT times in the output.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile


def free_port():
    """A loopback port free now (torchrun's --standalone always takes 29400)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    nproc, script, rest = argv[0], argv[1], argv[2:]
    expects, env = [], dict(os.environ)
    while rest:
        flag = rest.pop(0)
        if flag == "--expect":
            expects.append((rest.pop(0), int(rest.pop(0))))
        elif flag == "--env":
            name, value = rest.pop(0).split("=", 1)
            env[name] = value
        else:
            sys.exit(f"torchrun.py: unknown argument {flag!r}")
    limit = float(env.get("NEXAR_TORCHRUN_TIMEOUT", "90"))
    with tempfile.TemporaryDirectory(prefix="nexar_torchrun_") as tmp:
        env["NEXAR_TEST_STORE"] = os.path.join(tmp, "store")  # for scripts that make a FileStore
        for k in ("NEXAR_RANK", "NEXAR_WORLD_SIZE", "NEXAR_RENDEZVOUS", "NEXAR_CREDENTIALS"):
            env.pop(k, None)  # not under nexrun
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", nproc,
               "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
               "--max_restarts", "0", "--monitor_interval", "0.2",
               # torch 1.13 on Python 3.11 cannot parse redirect settings 0 and 3 (its Std
               # flag enum lost them): the ranks' stdout goes to a log and the console.
               "--redirects", "1", "--tee", "1", "--log_dir", os.path.join(tmp, "logs"), script]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            print(out)
            sys.exit(f"torchrun.py: the job did not end in {limit:g} s (killed)")
    print(out)
    failures = []
    if proc.returncode != 0:
        failures.append(f"torchrun exited with {proc.returncode}")
    if "Traceback" in out:
        failures.append("a rank printed a traceback")
    for text, count in expects:
        if out.count(text) != count:
            failures.append(f"{text!r} occurs {out.count(text)} times, expected {count}")
    if failures:
        sys.exit("torchrun.py: " + "; ".join(failures))


if __name__ == "__main__":
    main(sys.argv[1:])
