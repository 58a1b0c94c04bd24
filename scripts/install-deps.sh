#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Installs Debian 12 packages nexar needs, by group; skips apt-get when all are there.
# Needs root or sudo for the install.
#   scripts/install-deps.sh              build test torch multihost (what scripts/test.sh runs)
#   scripts/install-deps.sh build        only what building libnexar, nexrun and the tools needs
#   scripts/install-deps.sh GROUP...     any of: build test torch multihost bench clang docs
#   scripts/install-deps.sh --bench      the default groups and bench
set -euo pipefail
declare -A group=(
  # (help2man: the man page nexrun.1, made by every build that finds it.)
  [build]="build-essential cmake ninja-build pkg-config libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev
           libnghttp3-dev libcli11-dev help2man"
  # catch2; gtlsclient (the stock HTTP/3 client the tests read the rendezvous with); ps, ip.
  [test]="catch2 ngtcp2-client procps iproute2"
  # A stock PyTorch env:// program under nexrun, the backend python/nexar_torch, and the
  # package python/nexar (its tests use numpy).
  # Debian's torch does its matrix products in the system BLAS: the reference BLAS unless
  # OpenBLAS is installed (docs/torch.md, "Compute"); the OpenMP build shares torch's threads.
  [torch]="python3-torch libtorch-dev pybind11-dev python3-dev python3-numpy libopenblas0-openmp"
  # Many hosts: SLURM and ssh agents in namespace hosts; frames dropped on their bridge (nft).
  [multihost]="slurmctld slurmd slurm-client munge openssh-client openssh-server nftables"
  # tools/compare_allreduce.sh's comparison with Open MPI and its plots.
  [bench]="openmpi-bin libopenmpi-dev gnuplot-nox"
  # The clang build and the libFuzzer targets (scripts/fuzz.sh).
  [clang]="clang-14 libfuzzer-14-dev"
  # The API reference (cmake --build build --target docs) and Debian packages (cpack -G DEB).
  [docs]="doxygen dpkg-dev"
)
groups=("$@")
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then sed -n '4,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
if [ ${#groups[@]} -eq 0 ]; then groups=(build test torch multihost); fi
if [ "${groups[0]}" = "--bench" ]; then groups=(build test torch multihost bench); fi
pkgs=()
for g in "${groups[@]}"; do
  [ -n "${group[$g]+x}" ] || { echo "install-deps.sh: unknown group '$g' (build test torch multihost bench clang docs)" >&2; exit 2; }
  read -r -a more <<< "$(echo ${group[$g]})"
  pkgs+=("${more[@]}")
done
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
