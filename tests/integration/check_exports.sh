#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Fails if libnexar exports anything but nexar_* functions, or lacks a versioned SONAME.
set -euo pipefail
lib=$1
extra=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TWDBR]/ {print $3}' | grep -v '^nexar_' || true)
if [ -n "$extra" ]; then echo "unexpected exports:"; echo "$extra"; exit 1; fi
n=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^nexar_')
[ "$n" -ge 20 ] || { echo "only $n nexar_ symbols exported"; exit 1; }
readelf -d "$lib" | grep -q 'SONAME.*libnexar\.so\.[0-9]' || { echo "no versioned SONAME"; exit 1; }
echo "exports ok: $n nexar_* symbols"
