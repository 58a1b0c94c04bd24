// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A rank program for quic_poll_test: `quic_poll_probe pingpong|paced|exchange|spin_lost` under nexrun with
// NEXAR_TRANSPORT=quic. Every check is against data computed locally; any difference
// exits non-zero with a message.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../integration/probe_util.h"

using probe::g_rank;
using probe::g_world;
using probe::pattern;

namespace {

int g_size = 0;
constexpr int kRounds = 400;
constexpr int kTagData = 5, kTagEcho = 6;

// Mostly small messages, a large one (its own QUIC stream) every 17th, sizes all distinct.
size_t size_of(int round) { return round % 17 == 0 ? (256u << 10) + static_cast<size_t>(round) : 8 + round % 120; }

// Each message leads with its sender and its number (ANY_SOURCE: the receiver learns the
// sender from it and checks the order), then the pattern.
constexpr size_t kHead = 2 * sizeof(int32_t);

void fill(std::vector<unsigned char>& b, size_t n, int sender, int round) {
  for (size_t i = 0; i < n; ++i) b[i] = pattern(sender, round, i);
  const int32_t head[2] = {sender, round};
  std::memcpy(b.data(), head, kHead);
}

int32_t sender_of(const std::vector<unsigned char>& b) {
  int32_t head[2];
  std::memcpy(head, b.data(), kHead);
  return head[0];
}

bool intact(const std::vector<unsigned char>& b, size_t n, int sender, int round) {
  int32_t head[2];
  std::memcpy(head, b.data(), kHead);
  if (head[1] != round) {
    std::fprintf(stderr, "rank %d: message %d from rank %d came as number %d\n", g_rank, round, sender, head[1]);
    return false;
  }
  for (size_t i = kHead; i < n; ++i)
    if (b[i] != pattern(sender, round, i)) {
      std::fprintf(stderr, "rank %d: byte %zu of message %d from rank %d differs\n", g_rank, i, round, sender);
      return false;
    }
  return true;
}

// Ranks 1.. each send kRounds messages to rank 0, waiting for each one's echo; rank 0
// takes them with ANY_SOURCE / ANY_TAG, so the senders' streams interleave, checks each
// sender's order and bytes, and echoes the message back.
void pingpong() {
  std::vector<unsigned char> buf((256u << 10) + kRounds + 64), expect(buf.size());
  if (g_rank == 0) {
    std::vector<int> next(static_cast<size_t>(g_size), 0);
    for (int m = 0; m < kRounds * (g_size - 1); ++m) {
      PROBE_OK(nexar_recv(buf.data(), buf.size(), NEXAR_UINT8, NEXAR_ANY_SOURCE, NEXAR_ANY_TAG, g_world));
      const int src = sender_of(buf);
      PROBE_CHECK(src > 0 && src < g_size && next[static_cast<size_t>(src)] < kRounds);
      const int round = next[static_cast<size_t>(src)]++;
      const size_t n = size_of(round);
      PROBE_CHECK(intact(buf, n, src, round));
      PROBE_OK(nexar_send(buf.data(), n, NEXAR_UINT8, src, kTagEcho, g_world));
    }
  } else {
    for (int round = 0; round < kRounds; ++round) {
      const size_t n = size_of(round);
      fill(expect, n, g_rank, round);
      PROBE_OK(nexar_send(expect.data(), n, NEXAR_UINT8, 0, kTagData, g_world));
      std::memset(buf.data(), 0, n);
      PROBE_OK(nexar_recv(buf.data(), n, NEXAR_UINT8, 0, kTagEcho, g_world));
      PROBE_CHECK(std::memcmp(buf.data(), expect.data(), n) == 0);
    }
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: pingpong ok\n", g_rank);
}

// Rank 1 sends kPaced small messages 300 us apart; rank 0 receives each one spinning (the
// test sets a spin longer than the gap), so each message's delayed ACK falls due while the
// socket is empty and the spinning thread runs that timer itself.
constexpr int kPaced = 200;
void paced() {
  std::vector<unsigned char> buf(64), expect(64);
  for (int round = 0; round < kPaced; ++round) {
    const size_t n = 8 + round % 48;
    if (g_rank == 1) {
      fill(expect, n, 1, round);
      PROBE_OK(nexar_send(expect.data(), n, NEXAR_UINT8, 0, kTagData, g_world));
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    } else if (g_rank == 0) {
      PROBE_OK(nexar_recv(buf.data(), n, NEXAR_UINT8, 1, kTagData, g_world));
      PROBE_CHECK(intact(buf, n, 1, round));
    }
  }
  PROBE_OK(nexar_barrier(g_world));
  std::printf("rank %d: paced ok\n", g_rank);
}

// compare_allreduce's shape at np 2: a barrier, then a 4 B allreduce, kExchanges times;
// both ranks send, then both wait. Each sum is checked exactly.
constexpr int kExchanges = 2000;
void exchange() {
  for (int i = 0; i < kExchanges; ++i) {
    PROBE_OK(nexar_barrier(g_world));
    const int32_t mine = i * 7 + g_rank;
    int32_t sum = 0;
    PROBE_OK(nexar_allreduce(&mine, &sum, 1, NEXAR_INT32, NEXAR_SUM, g_world));
    int32_t want = 0;
    for (int r = 0; r < g_size; ++r) want += i * 7 + r;
    PROBE_CHECK(sum == want);
  }
  std::printf("rank %d: exchange ok\n", g_rank);
}

// Rank 1 dies while rank 0 waits for it, spinning in the QUIC poll (the test sets a spin
// longer than the wait): the wait must end with PEER_LOST, not hang.
void spin_lost() {
  PROBE_OK(nexar_barrier(g_world));
  int32_t v = 0;
  if (g_rank == 1) {
    PROBE_OK(nexar_recv(&v, 1, NEXAR_INT32, 0, 9, g_world));  // rank 0 is about to wait
    std::fflush(stdout);
    raise(SIGKILL);
  }
  PROBE_OK(nexar_send(&v, 1, NEXAR_INT32, 1, 9, g_world));
  const auto t0 = std::chrono::steady_clock::now();
  const nexar_result_t r = nexar_recv(&v, 1, NEXAR_INT32, 1, 10, g_world);
  std::printf("rank %d: spin_lost %s after %.2f s\n", g_rank, nexar_result_string(r), probe::seconds_since(t0));
  std::fflush(stdout);
  PROBE_CHECK(r == NEXAR_ERR_PEER_LOST);
  nexar_comm_destroy(g_world);
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: quic_poll_probe pingpong|paced|exchange|spin_lost\n");
    return 2;
  }
  PROBE_OK(nexar_init(&g_world));
  PROBE_OK(nexar_comm_rank(g_world, &g_rank));
  PROBE_OK(nexar_comm_size(g_world, &g_size));
  const std::string s = argv[1];
  if (s == "pingpong") {
    pingpong();
  } else if (s == "paced") {
    paced();
  } else if (s == "exchange") {
    exchange();
  } else if (s == "spin_lost") {
    spin_lost();
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
    return 2;
  }
  PROBE_OK(nexar_comm_destroy(g_world));
  return 0;
}
