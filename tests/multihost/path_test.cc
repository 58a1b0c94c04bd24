// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The path between two namespace hosts (veth, 1500-byte MTU): QUIC datagrams fit the link
// (no IP fragment anywhere, path-MTU discovery raises packets above 1200 bytes), and a
// lossy network (2% of UDP frames dropped and 2% duplicated by nft) keeps every allreduce
// exact and the job alive.
#include <unistd.h>

#include <catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "launcher/nexrun_process.h"
#include "multihost/shared_testbed.h"

using namespace launcher_test;
using namespace multihost_test;

namespace {

NetnsTestbed* testbed() { return shared_testbed(2); }

std::string marker() { return "mh-path-" + std::to_string(getpid()); }

std::vector<std::string> bulk_job() {
  return {"--launch-agent", NetnsTestbed::agent_template(), "-H", "mhA:1,mhB:1", MH_PROBE, "bulk", marker()};
}

void print_times(const char* what, const std::string& out) {
  std::printf("%s:", what);
  for (const char* size : {"4 bytes", "65536 bytes", "1048576 bytes", "16777216 bytes"}) {
    const size_t at = out.find(std::string("bulk ") + size + " ");
    if (at != std::string::npos) std::printf(" %s %ld us;", size, std::atol(out.c_str() + at + 6 + std::strlen(size)));
  }
  std::printf("\n");
}

}  // namespace

TEST_CASE("a 1500-byte MTU between hosts: no IP fragment, packets sized by path-MTU discovery", "[multihost][path]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  const long reasm_a = snmp_counter("mhA", "Ip", "ReasmReqds"), reasm_b = snmp_counter("mhB", "Ip", "ReasmReqds");
  const long frag_a = snmp_counter("mhA", "Ip", "FragCreates"), frag_b = snmp_counter("mhB", "Ip", "FragCreates");
  REQUIRE(reasm_a >= 0);
  std::string out, err;
  // TRACE: each connection's packet size at its end (connection_close.cc).
  Ended e = run_nexrun(bulk_job(), &out, &err, 90s, {"NEXAR_DEBUG=TRACE"});
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 2);
  CHECK(snmp_counter("mhA", "Ip", "ReasmReqds") == reasm_a);
  CHECK(snmp_counter("mhB", "Ip", "ReasmReqds") == reasm_b);
  CHECK(snmp_counter("mhA", "Ip", "FragCreates") == frag_a);
  CHECK(snmp_counter("mhB", "Ip", "FragCreates") == frag_b);
  // Path-MTU discovery raised the packets between the ranks from 1200 bytes to 1444
  // (ngtcp2's largest probe under the link's 1472).
  CHECK(count_of(out + err, "packets 1444 bytes") >= 2);
  std::printf("1500-byte MTU: %.2f s\n", e.seconds);
  print_times("1500-byte MTU allreduce", out);
}

TEST_CASE("2% of frames lost and 2% duplicated between hosts: results exact, no lost peer", "[multihost][path]") {
  NetnsTestbed* bed = testbed();
  if (!bed) return;
  std::string why;
  if (!bed->impair(2, 2, &why)) {
    WARN("skipped: " << why);
    return;
  }
  std::string out, err;
  Ended e = run_nexrun(bulk_job(), &out, &err, 120s);
  const long dropped = bed->dropped_frames(), duplicated = bed->duplicated_frames();
  bed->clear_impairment();
  INFO(out << err);
  CHECK(e.exit_code == 0);
  CHECK(count_of(out, "ok rank") == 2);
  CHECK(out.find("PEER_LOST") == std::string::npos);
  CHECK(dropped > 0);  // the network really was lossy
  CHECK(duplicated > 0);
  std::printf("2%% loss + 2%% duplication: %ld frames dropped, %ld duplicated, %.2f s\n", dropped, duplicated, e.seconds);
  print_times("lossy allreduce", out);
}
