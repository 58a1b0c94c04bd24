#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Two hosts for benchmarks: network namespaces nxbA and nxbB (169.254.79.1/.2, veth with
# a 1500-byte MTU) on a bridge brnxb (169.254.79.254: this host, where nexrun runs), apart
# from the tests' testbed (169.254.77.0/24) so a benchmark and the tests never share it.
# Needs root.
#
#   tools/netns_pair.sh up            make them (removing leftovers first)
#   tools/netns_pair.sh lossy L D     L% of the UDP frames the bridge forwards dropped, D%
#                                     of each host's UDP frames duplicated (nft; no netem)
#   tools/netns_pair.sh clean         a clean link again
#   tools/netns_pair.sh down          remove everything
# Launch across them: nexrun --launch-agent 'nsenter --net=/var/run/netns/{host}' -H nxbA:1,nxbB:1 ...
set -euo pipefail
hosts=(nxbA nxbB)

clean() {
  if command -v nft >/dev/null; then
    nft delete table bridge nxb_loss 2>/dev/null || true
    nft delete table netdev nxb_dup 2>/dev/null || true
  fi
  for h in "${hosts[@]}"; do ip -n "$h" link set dev eth0 gso_max_segs 65535 2>/dev/null || true; done
}

down() {
  clean
  for h in "${hosts[@]}"; do
    ip netns del "$h" 2>/dev/null || true
    ip link del "h$h" 2>/dev/null || true
  done
  ip link del brnxb 2>/dev/null || true
}

up() {
  down
  ip link add brnxb type bridge
  ip addr add 169.254.79.254/24 dev brnxb  # this host (nexrun's rendezvous) on the bridge
  ip link set brnxb up
  local i=1
  for h in "${hosts[@]}"; do
    ip netns add "$h"
    ip link add "v$h" type veth peer name "h$h"
    ip link set "v$h" netns "$h"
    ip link set "h$h" master brnxb up
    ip -n "$h" link set lo up
    ip -n "$h" link set "v$h" name eth0
    ip -n "$h" addr add "169.254.79.$i/24" dev eth0
    ip -n "$h" link set eth0 up
    i=$((i + 1))
  done
}

lossy() {
  local loss=$1 dup=$2
  command -v nft >/dev/null || { echo "netns_pair.sh: nft missing (apt-get install nftables)" >&2; exit 2; }
  clean
  nft add table bridge nxb_loss
  nft "add chain bridge nxb_loss lossy { type filter hook forward priority 0 ; }"
  nft add rule bridge nxb_loss lossy meta l4proto udp numgen random mod 100 lt "$loss" counter drop
  nft add table netdev nxb_dup
  nft "add chain netdev nxb_dup fromA { type filter hook ingress device \"hnxbA\" priority 0 ; }"
  nft "add rule netdev nxb_dup fromA meta l4proto udp numgen random mod 100 lt $dup counter dup to \"hnxbB\""
  nft "add chain netdev nxb_dup fromB { type filter hook ingress device \"hnxbB\" priority 0 ; }"
  nft "add rule netdev nxb_dup fromB meta l4proto udp numgen random mod 100 lt $dup counter dup to \"hnxbA\""
  # GSO batches cut into 1500-byte frames before they leave a host: a lost frame is one datagram.
  for h in "${hosts[@]}"; do ip -n "$h" link set dev eth0 gso_max_segs 1; done
}

case ${1:-} in
  up) up ;;
  down) down ;;
  clean) clean ;;
  lossy) lossy "${2:-2}" "${3:-0}" ;;
  *) echo "usage: tools/netns_pair.sh up|lossy LOSS% DUP%|clean|down" >&2; exit 2 ;;
esac
