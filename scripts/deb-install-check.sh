#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# deb-install-check.sh BUILD_DIR: the Debian packages of BUILD_DIR (configured with
# -DCMAKE_INSTALL_PREFIX=/usr), installed on this machine for real and removed again:
#   cpack -G DEB; dpkg -i every package; the ring example and an out-of-tree program (built
#   with find_package and with pkg-config against /usr) under /usr/bin/nexrun -np 2;
#   nexar-info; `import nexar_torch` and a torch.distributed all_reduce under nexrun (when
#   python3-nexar-torch was built); `man nexrun`; then dpkg -P every package and a check that
#   nothing of them is left (dpkg -L, every file they held, ldconfig's cache).
# Needs root and a machine where installing to /usr is fine (CI is not one: the deb_package
# test checks the same packages without touching the system). Refuses to run while any
# nexar package is installed; the packages are purged whatever fails.
set -euo pipefail
build=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "deb-install-check: needs root (dpkg -i)" >&2; exit 2; }
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
[ "$prefix" = /usr ] || { echo "deb-install-check: $build is configured for the prefix '$prefix', not /usr" >&2; exit 2; }
unset LD_LIBRARY_PATH PYTHONPATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step() { printf '\n$ %s\n' "$*"; }
fail() { echo "deb-install-check: FAILED: $*" >&2; exit 1; }

step cpack -G DEB
(cd "$build" && cpack -G DEB -B "$tmp/debs" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; fail "cpack"; }
debs=("$tmp"/debs/*.deb)
pkgs=()
for d in "${debs[@]}"; do
  p=$(dpkg-deb -f "$d" Package)
  pkgs+=("$p")
  printf '%-60s %s\n' "$(basename "$d")" "$(dpkg-deb -f "$d" Depends)"
  dpkg-deb -c "$d" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' >> "$tmp/files"
done
for p in "${pkgs[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q installed; then
    echo "deb-install-check: $p is installed already; remove it first (dpkg -P $p)" >&2
    exit 2
  fi
done

installed=0
purge() {
  step dpkg -P "${pkgs[@]}"
  dpkg -P "${pkgs[@]}" || true
  installed=0
}
trap '[ $installed -eq 0 ] || purge; rm -rf "$tmp"' EXIT

step dpkg -i "${debs[@]##*/}"
installed=1
dpkg -i "${debs[@]}" || fail "dpkg -i"
step ldconfig -p "| grep nexar"
ldconfig -p | grep nexar || fail "libnexar is not in ldconfig's cache"
step readelf -d /usr/bin/nexrun "| grep -E 'RUNPATH|NEEDED.*nexar'"
readelf -d /usr/bin/nexrun | grep -E 'RUNPATH|NEEDED.*nexar' || true

step cc -o ring /usr/share/doc/nexar/examples/ring.c '$(pkg-config --cflags --libs nexar)' "&&" /usr/bin/nexrun -np 2 ./ring
# (pkg-config from /usr: PKG_CONFIG_PATH unset)
(unset PKG_CONFIG_PATH; cc -o "$tmp/ring" /usr/share/doc/nexar/examples/ring.c $(pkg-config --cflags --libs nexar))
out=$(cd "$tmp" && timeout 120 /usr/bin/nexrun -np 2 ./ring) || fail "nexrun -np 2 ring: $out"
echo "$out"
grep -q "token came back to rank 0 as 1 (expected 1)" <<< "$out" || fail "the ring's token"

step cmake -S tests/consumer/app -B consumer "&&" cmake --build consumer "&&" /usr/bin/nexrun -np 2 consumer/consumer
cmake -S "$src/tests/consumer/app" -B "$tmp/consumer" -U CMAKE_PREFIX_PATH > "$tmp/consumer.log" 2>&1 &&
  cmake --build "$tmp/consumer" >> "$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log" >&2; fail "find_package(nexar) consumer"; }
grep -h "nexar_DIR:PATH" "$tmp/consumer/CMakeCache.txt"
out=$(timeout 120 /usr/bin/nexrun -np 2 "$tmp/consumer/consumer") || fail "consumer (find_package): $out"
echo "$out"
[ "$out" = "consumer: 2 ranks, sum 3" ] || fail "consumer (find_package) printed '$out'"

step cc -o consumer-pc tests/consumer/app/consumer.c '$(pkg-config --cflags --libs nexar)' "&&" /usr/bin/nexrun -np 2 ./consumer-pc
(unset PKG_CONFIG_PATH; pkg-config --cflags --libs nexar
 cc -o "$tmp/consumer-pc" "$src/tests/consumer/app/consumer.c" $(pkg-config --cflags --libs nexar))
out=$(timeout 120 /usr/bin/nexrun -np 2 "$tmp/consumer-pc") || fail "consumer (pkg-config): $out"
echo "$out"
[ "$out" = "consumer: 2 ranks, sum 3" ] || fail "consumer (pkg-config) printed '$out'"

if [[ " ${pkgs[*]} " == *" libnexar0-cuda "* ]]; then
  # Where libnexar looks first for its CUDA plugin: <libdir>/nexar/ (plugin_loader.cc).
  plugin=$(grep -m1 '/nexar/libnexar-cuda.so$' "$tmp/files") || fail "libnexar0-cuda holds no <libdir>/nexar/libnexar-cuda.so"
  step ls -l "$plugin"
  ls -l "$plugin"
fi

if [[ " ${pkgs[*]} " == *" nexar-tools "* ]]; then
  step "/usr/bin/nexar-info | head -3"
  /usr/bin/nexar-info > "$tmp/info" || fail "nexar-info"
  head -3 "$tmp/info"
fi

if [[ " ${pkgs[*]} " == *" python3-nexar-torch "* ]]; then
  packaged=$(grep -m1 '/nexar_torch/__init__.py$' "$tmp/files") || fail "python3-nexar-torch holds no nexar_torch/__init__.py"
  step /usr/bin/python3 -c "'import nexar_torch; print(nexar_torch.__file__)'"
  imported=$(cd "$tmp" && /usr/bin/python3 -c 'import nexar_torch; print(nexar_torch.__file__)') || fail "import nexar_torch"
  echo "$imported"
  if [ "$imported" != "$packaged" ]; then
    # Another nexar_torch earlier on sys.path (e.g. a `cmake --install` to /usr/local): the
    # checks put the package's directory first.
    export PYTHONPATH=${packaged%/nexar_torch/__init__.py}
    echo "(not the package's $packaged: this machine has another nexar_torch earlier on sys.path; PYTHONPATH=$PYTHONPATH from here on)"
    step PYTHONPATH=$PYTHONPATH /usr/bin/python3 -c "'import nexar_torch; print(nexar_torch.__file__)'"
    imported=$(cd "$tmp" && /usr/bin/python3 -c 'import nexar_torch; print(nexar_torch.__file__)') || fail "import nexar_torch"
    echo "$imported"
    [ "$imported" = "$packaged" ] || fail "python3 imports nexar_torch from $imported, not from the package's $packaged"
  fi
  readelf -d "$(dirname "$packaged")"/_C*.so | grep RUNPATH
  step /usr/bin/nexrun -np 2 /usr/bin/python3 -c "'<all_reduce with backend nexar>'"
  cat > "$tmp/allreduce.py" << 'EOF'
import torch, torch.distributed as dist
import nexar_torch
dist.init_process_group("nexar")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
if dist.get_rank() == 0:
    print(f"torch all_reduce over {dist.get_world_size()} ranks: {t.item()}")
dist.destroy_process_group()
EOF
  out=$(cd "$tmp" && timeout 300 /usr/bin/nexrun -np 2 /usr/bin/python3 allreduce.py) || fail "torch all_reduce: $out"
  echo "$out"
  grep -q "over 2 ranks: 3.0" <<< "$out" || fail "torch all_reduce printed '$out'"
fi

if grep -q "^/usr/share/man/man1/nexrun.1" "$tmp/files"; then
  step "man nexrun | head -8"
  man -w nexrun
  MANWIDTH=90 man nexrun 2> /dev/null | head -8
  MANWIDTH=90 man nexrun 2> /dev/null | grep -q -- "-np" || fail "man nexrun does not describe -np"
else
  fail "no /usr/share/man/man1/nexrun.1* in the packages (help2man not found when $build was configured?)"
fi

purge
step "after dpkg -P: dpkg -L, the packages' files, ldconfig -p | grep nexar"
left=0
for p in "${pkgs[@]}"; do
  if dpkg -L "$p" > /dev/null 2>&1; then echo "still installed: $p"; left=1; else echo "$p: not installed"; fi
done
n=0
while IFS= read -r f; do
  n=$((n + 1))
  if [ -e "$f" ] || [ -L "$f" ]; then echo "left behind: $f"; left=1; fi
done < <(sed 's| -> .*||' "$tmp/files" 2> /dev/null || true)
echo "$n packaged files: none left"
if ldconfig -p | grep nexar; then left=1; else echo "ldconfig -p | grep nexar: (nothing)"; fi
for d in /usr/lib/python3/dist-packages/nexar_torch /usr/share/doc/nexar /usr/lib/*/cmake/nexar /usr/include/nexar; do
  [ ! -e "$d" ] || { echo "left behind: $d"; left=1; }
done
[ $left -eq 0 ] || fail "files or packages left after dpkg -P"
echo "deb-install-check: ok"
