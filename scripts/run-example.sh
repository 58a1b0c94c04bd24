#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# The first README command: install dependencies, build, run the ring example on 4 ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
scripts/build.sh build
exec build/launcher/nexrun -np 4 --tag-output build/examples/ring
