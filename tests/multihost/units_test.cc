// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The pure parts of many-host launching: host lists, hostfiles, SLURM expressions, rank
// mapping, the agent channel's encoding, address selection, and which ranks share a
// machine.
#include <catch.hpp>

#include "bootstrap/address_select.h"
#include "bootstrap/host_identity.h"
#include "launcher/agent_protocol.h"
#include "launcher/host_list.h"
#include "launcher/rank_map.h"

using namespace nexar;
using namespace nexar::launcher;

TEST_CASE("-H and hostfiles in Open MPI's syntax", "[multihost]") {
  std::vector<HostSlots> h;
  REQUIRE(parse_host_option("h1:2,h2,[fd00:77::1]:3,h1", &h).ok());
  REQUIRE(h.size() == 3);
  CHECK(h[0].name == "h1");
  CHECK(h[0].slots == 3);  // 2 + a second mention
  CHECK(h[1].slots == 1);
  CHECK(h[2].name == "fd00:77::1");
  CHECK(h[2].slots == 3);
  h.clear();
  CHECK(!parse_host_option("h1:0", &h).ok());
  CHECK(!parse_host_option("h1,,h2", &h).ok());
  CHECK(!parse_host_option("h1,", &h).ok());  // a trailing comma is an empty host, not ignored
  CHECK(parse_host_option("h1:x", &h).message().find("h1:x") != std::string::npos);

  h.clear();
  REQUIRE(parse_hostfile_text("# cluster\nnode1 slots=4 max_slots=8\n  node2:2  # comment\n\nnode3\n", &h).ok());
  REQUIRE(h.size() == 3);
  CHECK(h[0].slots == 4);
  CHECK(h[1].slots == 2);
  CHECK(h[2].slots == 1);
  h.clear();
  Status s = parse_hostfile_text("node1\nnode2 cpus=3\n", &h);
  CHECK(!s.ok());
  CHECK(s.message().find("line 2") != std::string::npos);
  h.clear();
  CHECK(!parse_hostfile_text("# nothing\n", &h).ok());
}

TEST_CASE("SLURM hostlists and tasks per node", "[multihost]") {
  std::vector<std::string> n;
  REQUIRE(expand_slurm_hostlist("n[01-04,07],login1,gpu[9-10]x", &n).ok());
  CHECK(n == std::vector<std::string>{"n01", "n02", "n03", "n04", "n07", "login1", "gpu9x", "gpu10x"});
  n.clear();
  CHECK(!expand_slurm_hostlist("n[1-", &n).ok());
  CHECK(!expand_slurm_hostlist("n[3-1]", &n).ok());
  CHECK(!expand_slurm_hostlist("a,,b", &n).ok());
  // Several bracket groups in a name (found by fuzzing: the second was taken as text).
  n.clear();
  REQUIRE(expand_slurm_hostlist("r[1-2]-n[01-02],x[7]y[08-09]z", &n).ok());
  CHECK(n == std::vector<std::string>{"r1-n01", "r1-n02", "r2-n01", "r2-n02", "x7y08z", "x7y09z"});
  // Bounds (fuzzing: LONG_MAX looped forever, and expansions had no limit).
  n.clear();
  CHECK(!expand_slurm_hostlist("n[9223372036854775807]", &n).ok());
  CHECK(!expand_slurm_hostlist("n[]", &n).ok());
  CHECK(!expand_slurm_hostlist("n[1,]", &n).ok());  // an empty range, not ignored
  CHECK(!expand_slurm_hostlist("a[0-99999]b[0-99999]", &n).ok());
  CHECK(n.size() <= kMaxSlurmNames);
  std::vector<int> t;
  CHECK(!expand_slurm_tasks_per_node("1(x100000),1(x100000)", &t).ok());
  CHECK(!expand_slurm_tasks_per_node("2,", &t).ok());
  t.clear();
  REQUIRE(expand_slurm_tasks_per_node("2(x3),1", &t).ok());
  CHECK(t == std::vector<int>{2, 2, 2, 1});
  t.clear();
  CHECK(!expand_slurm_tasks_per_node("2(3)", &t).ok());
  CHECK(!expand_slurm_tasks_per_node("x", &t).ok());
}

TEST_CASE("mapping ranks by slot, by node, per node", "[multihost]") {
  const std::vector<HostSlots> hosts{{"a", 2}, {"b", 2}, {"c", 1}};
  RankMap m;
  REQUIRE(map_ranks(hosts, 0, 0, false, &m).ok());
  CHECK(m.host_of_rank == std::vector<int>{0, 0, 1, 1, 2});
  CHECK(m.local_rank(3) == 1);
  REQUIRE(map_ranks(hosts, 4, 0, true, &m).ok());
  CHECK(m.host_of_rank == std::vector<int>{0, 1, 2, 0});
  REQUIRE(map_ranks(hosts, 5, 0, true, &m).ok());
  CHECK(m.host_of_rank == std::vector<int>{0, 1, 2, 0, 1});  // c is full after one
  REQUIRE(map_ranks(hosts, 0, 3, false, &m).ok());
  CHECK(m.host_of_rank.size() == 9);
  REQUIRE(map_ranks(hosts, 2, 0, false, &m).ok());
  CHECK(m.used_hosts() == std::vector<int>{0});
  Status s = map_ranks(hosts, 6, 0, false, &m);
  CHECK(!s.ok());
  CHECK(s.message().find("6 ranks asked") != std::string::npos);
  CHECK(describe_map(m).find("ranks 0 1") != std::string::npos);
}

TEST_CASE("agent channel lines carry any bytes", "[multihost]") {
  std::string raw;
  for (int c = 0; c < 256; ++c) raw += static_cast<char>(c);
  const std::string line = agent::encode("O", "3", {"7", "", raw, "a b\nc%"});
  CHECK(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  agent::Message m;
  REQUIRE(agent::decode(line.substr(0, line.size() - 1), &m));
  CHECK(m.type == "O");
  CHECK(m.target == "3");
  REQUIRE(m.fields.size() == 4);
  CHECK(m.fields[1].empty());
  CHECK(m.fields[2] == raw);
  CHECK(m.fields[3] == "a b\nc%");
  CHECK(!agent::decode("O", &m));
  CHECK(!agent::decode("O 1 %4", &m));
  CHECK(!agent::decode("O 1 %zz", &m));
  CHECK(!agent::decode("O 1  x", &m));
}

TEST_CASE("address selection never advertises loopback toward another host", "[multihost]") {
  std::string a;
  REQUIRE(bootstrap::select_address("127.0.0.1:5000", "", "", "", &a).ok());
  CHECK(a == "127.0.0.1");
  REQUIRE(bootstrap::select_address("[::1]:5000", "", "", "", &a).ok());
  CHECK(a == "::1");
  REQUIRE(bootstrap::select_address("192.0.2.1:5000", "10.9.9.9", "", "", &a).ok());
  CHECK(a == "10.9.9.9");  // NEXAR_ADDR wins
  CHECK(bootstrap::ip_in_cidr("169.254.77.3", "169.254.77.0/24"));
  CHECK(!bootstrap::ip_in_cidr("169.254.78.3", "169.254.77.0/24"));
  CHECK(bootstrap::ip_in_cidr("fd00:77::5", "fd00:77::/64"));
  CHECK(!bootstrap::ip_in_cidr("fd00:78::5", "fd00:77::/64"));
  CHECK(!bootstrap::check_cidr("10.0.0.0/33").ok());
  CHECK(!bootstrap::check_cidr("nonsense").ok());
  Status s = bootstrap::select_address("192.0.2.1:5000", "", "no-such-if0", "", &a);
  CHECK(!s.ok());
  CHECK(s.message().find("no-such-if0") != std::string::npos);
  // Toward a non-local address the answer is this host's route source, never loopback.
  for (const std::string& ip : bootstrap::interface_addresses("", "")) {
    std::string src;
    if (ip.find(':') == std::string::npos && bootstrap::select_address(ip + ":1", "", "", "", &src).ok())
      CHECK(!bootstrap::is_loopback_ip(src));
  }
}

TEST_CASE("namespace hosts of one machine share its cores: a rank's index is per machine", "[multihost]") {
  using bootstrap::machine_index;
  using bootstrap::machine_of;
  CHECK(machine_of("node1/boot-a/net:[4026531840]") == "node1/boot-a");
  CHECK(machine_of("rank-host-7") == "rank-host-7");  // NEXAR_HOST_ID: its own machine
  // Ranks 0 and 1 in two namespaces of one machine, rank 2 on another machine, rank 3
  // beside rank 0: the indexes a home core is chosen by are 0, 1, 0, 2.
  const std::vector<std::string> ids = {"a/b1/net:[1]", "a/b1/net:[2]", "c/b2/net:[1]", "a/b1/net:[1]"};
  CHECK(machine_index(ids, 0) == 0);
  CHECK(machine_index(ids, 1) == 1);
  CHECK(machine_index(ids, 2) == 0);
  CHECK(machine_index(ids, 3) == 2);
  CHECK(machine_index(ids, 9) == 0);  // out of range: the first
  // NEXAR_HOST_ID values without slashes are machines of their own.
  CHECK(machine_index({"x", "y", "x"}, 2) == 1);
  CHECK(machine_index({"x", "y", "x"}, 1) == 0);
}
