#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Configures and builds nexar in each configuration developers and packagers use, warnings
# as errors as the top project has them (NEXAR_WERROR's default), and prints a table.
#   scripts/build-matrix.sh [--all] [CONFIG...]
# CONFIG: release debug minsizerel relwithdebinfo (GCC, CMAKE_BUILD_TYPE), debian (Debian's
# dpkg-buildflags with hardening=+all, CMAKE_BUILD_TYPE=None and prefix /usr as debhelper
# configures), clang14 (clang-14, RelWithDebInfo). Default: all of them, each building the
# library (and the CUDA plugin when it is configured), nexrun, the tools, the examples, the
# man page and the PyTorch extension when configured; --all builds every target (tests included).
# Trees go to build-matrix/CONFIG, logs to build-matrix/CONFIG.log; NEXAR_JOBS sets -j.
# Not run by CI: six builds take far longer than its budget.
set -uo pipefail
cd "$(dirname "$0")/.."
targets=(nexar nexrun nexar-info nexar-p2p-bench nexar-bench nexar-launch-probe nexar-recovery-bench
         ring init_barrier ring_cpp resilient_train)
if [ "${1:-}" = "--all" ]; then
  targets=(all)
  shift
fi
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(release debug minsizerel relwithdebinfo debian clang14)
jobs=${NEXAR_JOBS:-$(nproc)}
top=build-matrix
mkdir -p "$top"

# configure CONFIG DIR: cmake's configure step for CONFIG (environment and arguments).
configure() {
  local args=(-S . -B "$2")
  case $1 in
    release) args+=(-DCMAKE_BUILD_TYPE=Release) ;;
    debug) args+=(-DCMAKE_BUILD_TYPE=Debug) ;;
    minsizerel) args+=(-DCMAKE_BUILD_TYPE=MinSizeRel) ;;
    relwithdebinfo) args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
    clang14) args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14) ;;
    debian)
      command -v dpkg-buildflags > /dev/null || { echo "dpkg-buildflags not found (apt-get install dpkg-dev)"; return 1; }
      # As debhelper's cmake step: the preprocessor flags join the compiler flags.
      (eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
       export CFLAGS="$CFLAGS $CPPFLAGS" CXXFLAGS="$CXXFLAGS $CPPFLAGS" LDFLAGS
       cmake "${args[@]}" -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr)
      return ;;
    *) echo "unknown configuration '$1' (release debug minsizerel relwithdebinfo debian clang14)"; return 1 ;;
  esac
  cmake "${args[@]}"
}

# optional_targets DIR: the product's targets DIR's configuration made (torch, help2man found).
optional_targets() {
  [ "${targets[0]}" != all ] || return 0
  grep -qs '^NEXAR_TORCH_PYTHON_EXE:' "$1/CMakeCache.txt" && echo nexar_torch
  grep -qs '^NEXAR_HELP2MAN:FILEPATH=/' "$1/CMakeCache.txt" && echo nexrun_man
  return 0
}

results=()
failed=0
for c in "${configs[@]}"; do
  dir=$top/$c log=$top/$c.log
  start=$SECONDS
  if ! configure "$c" "$dir" > "$log" 2>&1; then
    status="configure FAILED"
  elif ! cmake --build "$dir" -j"$jobs" --target "${targets[@]}" $(optional_targets "$dir") >> "$log" 2>&1; then
    status="build FAILED"
  else
    status=ok
  fi
  [ "$status" = ok ] || { failed=1; grep -m5 -E "error|Error" "$log" | sed "s/^/  $c: /" >&2; }
  werror=$(grep -E '^NEXAR_WERROR:' "$dir/CMakeCache.txt" 2>/dev/null | cut -d= -f2)
  results+=("$(printf '%-15s %-18s %-7s %5d s  %s' "$c" "$status" "${werror:-?}" $((SECONDS - start)) \
    "$(optional_targets "$dir" | tr '\n' ' ')")")
  echo "${results[-1]}"
done
echo
printf '%-15s %-18s %-7s %7s  %s   (targets: %s; load average %s)\n' config result WERROR time "also built" "${targets[*]}" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
exit $failed
