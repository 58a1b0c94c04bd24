// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Starting without nexrun: the test starts each rank itself (uid_probe), one of them makes
// the unique id and writes it to a file the others read; every wait is bounded.
#include <signal.h>

#include <catch.hpp>

#include "uid/uid_expect.h"
#include "uid/uid_job.h"

using launcher_test::count_of;
using namespace uid_test;

namespace {

std::vector<Member> world(int size) {
  std::vector<Member> m;
  for (int r = 0; r < size; ++r) m.push_back({r, size, "", ""});
  return m;
}

void expect_exits(const Result& r, int code) {
  INFO(r.out << r.err);
  for (const Ended& e : r.ended) {
    CHECK(e.finished);
    CHECK(e.exit_code == code);
  }
}

}  // namespace

TEST_CASE("np 1, 2 and 4 started without nexrun: collectives and point to point are exact", "[uid]") {
  for (int np : {1, 2, 4}) {
    Result r = run(world(np), "coll");
    expect_exits(r, 0);
    for (int rank = 0; rank < np; ++rank)
      CHECK(count_of(r.out, "rank " + std::to_string(rank) + " of " + std::to_string(np) + ": coll ok") == 1);
    expect_coll_results(r.out, np);
  }
}

TEST_CASE("forced QUIC between the ranks: mutual TLS from the id's secret", "[uid]") {
  Result r = run(world(3), "coll", {"NEXAR_TRANSPORT=quic"});
  expect_exits(r, 0);
  CHECK(count_of(r.out, ": coll ok") == 3);
  expect_coll_results(r.out, 3);
}

TEST_CASE("two processes with the same rank both fail naming it, and so does the rest", "[uid]") {
  // Rank 2 never comes: the world cannot complete before the second rank 1 arrives.
  Result r = run({{0, 3, "", ""}, {1, 3, "", ""}, {1, 3, "", ""}}, "init", {"NEXAR_CONNECT_TIMEOUT=30"});
  expect_exits(r, 3);
  INFO(r.out << r.err);
  CHECK(count_of(r.out, "init failed: NEXAR_ERR_INVALID_ARGUMENT") == 3);
  CHECK(count_of(r.out, "two processes passed rank 1") == 3);
  for (const Ended& e : r.ended) CHECK(e.seconds < 20);  // not the connect timeout
}

TEST_CASE("processes that pass different sizes fail naming both sizes", "[uid]") {
  Result r = run({{0, 2, "", ""}, {1, 3, "", ""}}, "init", {"NEXAR_CONNECT_TIMEOUT=30"});
  expect_exits(r, 3);
  INFO(r.out << r.err);
  CHECK(count_of(r.out, "init failed: NEXAR_ERR_MISMATCH") == 2);
  CHECK(count_of(r.out, "the first process to join passed size") == 2);
  for (const Ended& e : r.ended) CHECK(e.seconds < 20);
}

TEST_CASE("a process stopped inside its join reads the size mismatch after the maker failed", "[uid]") {
  // Rank 1 counts itself joined and stops (NEXAR_FAULT_STOP) before it waits for the
  // others; a process with the wrong size then fails the job, and the maker of the id
  // (whose process serves the rendezvous) fails with it and exits. Rank 1, resumed, must
  // still read the mismatch: the maker serves on at exit while a process is inside its join.
  Job job({"NEXAR_CONNECT_TIMEOUT=30"});
  const size_t maker = job.add({0, 3, "", ""}, "init", true);  // fixes the size: 3
  std::string bytes;
  REQUIRE(job.wait_id(&bytes));
  const size_t paused = job.add({1, 3, "", ""}, "init", false, {"NEXAR_FAULT_STOP=1:uid_joined"});
  REQUIRE(launcher_test::process_stopped(job.process(paused).pid(), 20s));
  job.add({2, 4, "", ""}, "init");
  REQUIRE(job.process(maker).wait_for_stdout("rank 0: init failed: NEXAR_ERR_MISMATCH", 1, 20s));
  // Without the grace the maker is gone within this wait; with it, it serves on (3 s).
  (void)launcher_test::process_gone(job.process(maker).pid(), 1500ms);
  job.process(paused).signal(SIGCONT);
  Result r = job.wait();
  expect_exits(r, 3);
  INFO(r.out << r.err);
  CHECK(count_of(r.out, "init failed: NEXAR_ERR_MISMATCH") == 3);
  CHECK(count_of(r.out, "rank 2 passed size 4, the first process to join passed size 3") == 3);
  CHECK(count_of(r.out, "NEXAR_ERR_PEER_LOST") == 0);
}

TEST_CASE("a rank that never joins: the others fail within the timeout naming it", "[uid]") {
  Result r = run({{0, 3, "", ""}, {2, 3, "", ""}}, "init", {"NEXAR_CONNECT_TIMEOUT=2"});
  expect_exits(r, 3);
  INFO(r.out << r.err);
  CHECK(count_of(r.out, "init failed: NEXAR_ERR_TIMEOUT") == 2);
  CHECK(count_of(r.out, "rank 1 of 3 did not join within 2 s") == 2);
  for (const Ended& e : r.ended) CHECK(e.seconds < 15);
}

TEST_CASE("a garbled id or one that is no id is refused at once by name", "[uid]") {
  Job job({"NEXAR_CONNECT_TIMEOUT=2"});
  const std::string garbled = job.dir() + "/garbled", junk = job.dir() + "/junk";
  job.start({{0, 2, "", ""}}, "init");
  std::string bytes;
  REQUIRE(job.wait_id(&bytes));
  bytes[300] = static_cast<char>(bytes[300] ^ 0x01);
  std::ofstream(garbled, std::ios::binary) << bytes;
  std::ofstream(junk, std::ios::binary) << std::string(512, 'x');
  for (const std::string& file : {garbled, junk}) {
    std::string out, err;
    Ended e = launcher_test::run_program({UID_PROBE, file, "1", "2", "init"}, &out, &err, 20s);
    INFO(out + err);
    CHECK(e.exit_code == 3);
    CHECK(count_of(out, "init failed: NEXAR_ERR_INVALID_ARGUMENT") == 1);
    CHECK(count_of(out, file == garbled ? "is garbled" : "is not one") == 1);
    CHECK(e.seconds < 5);
  }
  // The maker's rank 1 never came.
  Result r = job.wait();
  expect_exits(r, 3);
  CHECK(count_of(r.out, "rank 1 of 2 did not join") == 1);
}

TEST_CASE("nexar_init under torchrun's variables without nexrun names nexar_init_rank", "[uid]") {
  std::string out, err;
  Ended e = launcher_test::run_program({"env", "WORLD_SIZE=2", "RANK=0", UID_PROBE, "-", "0", "1", "nexar_init"}, &out,
                                       &err, 20s);
  INFO(out + err);
  CHECK(e.exit_code == 3);
  CHECK(count_of(out, "nexar_init failed: NEXAR_ERR_INVALID_ARGUMENT") == 1);
  CHECK(count_of(out, "nexar_init_rank") >= 1);
}
