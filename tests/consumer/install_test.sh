#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# install_test.sh BUILD_DIR SOURCE_DIR WITH_MAN: installs BUILD_DIR into a temporary prefix,
# builds tests/consumer/app with find_package(nexar) and with pkg-config and the C++ ring
# example with the installed headers, runs them under the installed nexrun -np 2 with no
# LD_LIBRARY_PATH, then moves the prefix and runs a consumer again. With WITH_MAN 1 the man
# page nexrun.1 must be installed too.
set -euo pipefail
build=$1 src=$2 with_man=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
libdir=$(dirname "$(find "$prefix" -name libnexar.so.0 | head -1)")
[ -f "$libdir/cmake/nexar/nexarConfig.cmake" ] || { echo "no nexarConfig.cmake in $libdir/cmake/nexar" >&2; exit 1; }
readelf -d "$libdir/libnexar.so.0" | grep -q 'SONAME.*libnexar.so.0' || { echo "libnexar.so.0 has no SONAME libnexar.so.0" >&2; exit 1; }
if [ "$with_man" = 1 ]; then
  man=$prefix/share/man/man1/nexrun.1.gz
  [ -f "$man" ] || { echo "no man page $man" >&2; exit 1; }
  zcat "$man" | grep -q -- '-np' || { echo "$man does not describe -np" >&2; exit 1; }
fi
# The consumers' RUNPATH (from CMake, from nexar.pc) names the prefix: no LD_LIBRARY_PATH.
cmake -S "$src/tests/consumer/app" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/consumer.log"
cmake --build "$tmp/cmake-build" > "$tmp/consumer-build.log"
pc_flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs nexar)
case $pc_flags in *-rpath*) ;; *) echo "nexar.pc under $prefix gives no RUNPATH: $pc_flags" >&2; exit 1 ;; esac
# nexar.pc is written for the prefix installed to, not the configured one: staged for /usr
# (as a package build does) it gives no RUNPATH, whatever this build was configured with.
DESTDIR=$tmp/staged cmake --install "$build" --prefix /usr --component dev > "$tmp/staged.log"
staged_pc=$(find "$tmp/staged/usr" -name nexar.pc)
[ -n "$staged_pc" ] || { echo "no nexar.pc staged for /usr" >&2; exit 1; }
! grep -q -- -rpath "$staged_pc" || { echo "nexar.pc for /usr names a RUNPATH: $(grep Libs "$staged_pc")" >&2; exit 1; }
cc -o "$tmp/consumer-pc" "$src/tests/consumer/app/consumer.c" $pc_flags
run() {  # run NEXRUN PROGRAM: expect the sum of 1..2
  local out
  out=$(timeout 120 "$1" -np 2 "$2")
  echo "$out"
  [ "$out" = "consumer: 2 ranks, sum 3" ] || { echo "unexpected output from $2" >&2; exit 1; }
}
run "$prefix/bin/nexrun" "$tmp/cmake-build/consumer"
run "$prefix/bin/nexrun" "$tmp/consumer-pc"
# The C++ wrapper from the prefix (nexar.hpp and the part headers it includes): the
# installed C++ example.
c++ -std=c++20 -o "$tmp/ring_cpp" "$prefix/share/doc/nexar/examples/ring_cpp.cc" $pc_flags
out=$(timeout 120 "$prefix/bin/nexrun" -np 2 "$tmp/ring_cpp")
echo "$out"
[ "$out" = "ring_cpp: token came back as 1 (expected 1)" ] || { echo "unexpected output from ring_cpp" >&2; exit 1; }
"$prefix/bin/nexar-info" > /dev/null
# A moved prefix: nexrun and the tools find libnexar through $ORIGIN, nexar.pc its paths
# through its own location.
mv "$prefix" "$tmp/moved"
moved_lib=${libdir/$prefix/$tmp/moved}
"$tmp/moved/bin/nexar-info" > /dev/null
pc_flags=$(PKG_CONFIG_PATH="$moved_lib/pkgconfig" pkg-config --cflags --libs nexar)
cc -o "$tmp/consumer-moved" "$src/tests/consumer/app/consumer.c" $pc_flags
run "$tmp/moved/bin/nexrun" "$tmp/consumer-moved"
echo "install_test: ok"
