#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Installs what building and testing nexar needs on Debian 12 (only Debian packages).
# Skips apt-get when everything is already there. Needs root or sudo for the install.
#   scripts/install-deps.sh [--bench]
set -euo pipefail
pkgs=(build-essential cmake pkg-config
      libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev libnghttp3-dev
      libcli11-dev catch2
      ngtcp2-client   # gtlsclient: the stock HTTP/3 client the tests read the rendezvous with
      procps iproute2
      python3-torch   # a stock PyTorch env:// program under nexrun (integration_torch_env)
      libtorch-dev pybind11-dev python3-dev   # the PyTorch backend python/nexar_torch and its tests
      slurmctld slurmd slurm-client munge openssh-client openssh-server)  # many hosts: SLURM, ssh agents
# --bench: also what tools/compare_allreduce.sh compares against and plots with.
[ "${1:-}" = "--bench" ] && pkgs+=(openmpi-bin libopenmpi-dev gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
