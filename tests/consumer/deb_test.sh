#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# deb_test.sh BUILD_DIR LIBDIR WITH_MAN: cpack -G DEB on BUILD_DIR, then checks the packages without
# touching the system: their names, dependencies (dpkg-shlibdeps ran), where the library and
# the Python package and the man page go (LIBDIR is the build's CMAKE_INSTALL_LIBDIR; WITH_MAN
# 1: help2man made nexrun.1), SONAME and RUNPATHs;
# then extracts them into a temporary root (dpkg -x) and runs an installed tool and an
# example built from the installed sources under the extracted nexrun -np 2, and imports
# the Python package from there. (docs/getting-started.md: `dpkg -i` is the same files.)
set -euo pipefail
build=$1 libdir=$2 with_man=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
fail() { echo "deb_test: $*" >&2; exit 1; }
# Kept cheap: no preinstall step (the tree is built: a Ninja generator has none, and cpack
# uses the name for that alone), no compression, and dpkg-shlibdeps for libnexar0 only.
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" -D CPACK_CMAKE_GENERATOR=Ninja \
  -D CPACK_DEBIAN_COMPRESSION_TYPE=none -D CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS=OFF \
  -D CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS=OFF \
  -D CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_SHLIBDEPS=OFF > "$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
deb() { ls "$tmp/out/$1"_*.deb 2> /dev/null | head -1; }
for p in libnexar0 libnexar-dev nexar-tools; do [ -n "$(deb $p)" ] || fail "no $p package in: $(ls "$tmp/out")"; done
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
# dpkg-shlibdeps named the system libraries libnexar links.
for want in libc6 libgnutls30 libngtcp2; do
  field libnexar0 Depends | grep -q "$want" || fail "libnexar0 does not depend on $want: $(field libnexar0 Depends)"
done
field nexar-tools Depends | grep -q "libnexar0 (= " || fail "nexar-tools does not depend on libnexar0"
field libnexar-dev Depends | grep -q "libnexar0 (= " || fail "libnexar-dev does not depend on libnexar0"
contents() { dpkg-deb -c "$(deb "$1")"; }  # (whole: grep -q would cut the pipe)
[[ "$(contents libnexar0)" == *" ./usr/$libdir/libnexar.so.0 -> "* ]] || fail "libnexar.so.0 is not in /usr/$libdir"
[[ "$(contents libnexar-dev)" == *" ./usr/$libdir/libnexar.so -> libnexar.so.0"* ]] ||
  fail "libnexar-dev has no libnexar.so link in /usr/$libdir"
if [ "$with_man" = 1 ]; then
  [[ "$(contents libnexar0)" == *" ./usr/share/man/man1/nexrun.1.gz"* ]] || fail "libnexar0 has no man page nexrun.1.gz"
fi

root=$tmp/root
for f in "$tmp"/out/*.deb; do dpkg -x "$f" "$root"; done
lib=$root/usr/$libdir
readelf -d "$lib/libnexar.so.0" | grep -q 'SONAME.*\[libnexar.so.0\]' || fail "libnexar.so.0 has no SONAME libnexar.so.0"
readelf -d "$root/usr/bin/nexrun" | grep -q 'RUNPATH.*\$ORIGIN' || fail "nexrun's RUNPATH is not \$ORIGIN-relative"
# The extracted nexrun runs an extracted tool and an example built from the installed
# sources with the installed nexar.pc (no LD_LIBRARY_PATH: RUNPATHs find libnexar).
"$root/usr/bin/nexar-info" > /dev/null || fail "the installed nexar-info does not run"
pc_flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs nexar)
cc -o "$tmp/ring" "$root/usr/share/doc/nexar/examples/ring.c" $pc_flags -Wl,-rpath,"$lib"
out=$(timeout 60 "$root/usr/bin/nexrun" -np 2 "$tmp/ring") || fail "nexrun -np 2 ring failed: $out"
echo "$out"
echo "$out" | grep -q "token came back to rank 0 as 1 (expected 1)" || fail "the ring example's token is wrong"

# The Python packages: where the system's python3 looks, and they import from the root.
# python_deb PACKAGE MODULE CHECK: PACKAGE holds /usr/lib/python3*/MODULE/__init__.py and a
# prerm, and python3 runs CHECK (after importing MODULE) from the extracted root.
python_deb() {
  local pkg=$1 module=$2 check=$3 site
  [ -n "$(deb "$pkg")" ] || return 0
  # (|| true: no match must reach fail's message, not end the script silently under pipefail)
  site=$(contents "$pkg" | grep -o "\./usr/lib/python3[^ ]*/$module/__init__.py" | sed "s|^\./||; s|/$module/__init__.py\$||" || true)
  [ -n "$site" ] || fail "$pkg has no /usr/lib/python3*/$module/__init__.py (a build tree configured with an absolute install dir? cmake -U 'NEXAR_*_INSTALL_DIR'): $(contents "$pkg" | grep -o '\./[^ ]*/__init__.py' || true)"
  dpkg-deb -I "$(deb "$pkg")" prerm > /dev/null || fail "$pkg has no prerm (its byte code would stay behind)"
  /usr/bin/python3 -c "import sys; sys.exit(0 if '/$site' in sys.path else 1)" ||
    fail "/$site is not on /usr/bin/python3's sys.path"
  PYTHONPATH="$root/$site" /usr/bin/python3 -c "import $module; $check" ||
    fail "$module does not import from the extracted package"
}
python_deb python3-nexar-torch nexar_torch "assert nexar_torch.BACKEND == 'nexar'"
# (the extracted nexar finds the extracted libnexar through its RUNPATH; one rank, no nexrun)
python_deb python3-nexar nexar "assert nexar.COMM_WORLD.Get_size() == 1 and nexar.version()"
echo "deb_test: ok ($(cd "$tmp/out" && ls *.deb | tr '\n' ' '))"
