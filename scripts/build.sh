#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Configures and builds nexar into build/ (or $1), passing the rest of the arguments to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
# Ninja when it is there (it schedules the build's ~150 targets better than make); a tree
# configured earlier keeps its generator.
generator=()
if command -v ninja > /dev/null && [ ! -f "$dir/CMakeCache.txt" ]; then generator=(-G Ninja); fi
cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
