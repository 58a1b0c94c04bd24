// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The TCP data plane's connect proof, end to end: while a real job runs with
// NEXAR_TRANSPORT=tcp, raw TCP clients connect to rank 0 with garbage, another job's
// certificate, rank 2's certificate claiming rank 1, rank 1's certificate without rank 1's
// key, a valid proof for a rank that is already connected, and one that sends three bytes
// and stalls. Each is refused with a log line, and the job finishes unharmed.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch.hpp>
#include <cstring>
#include <fstream>
#include <sstream>

#include "security/attacked_job.h"
#include "transport/quic/address.h"
#include "transport/tcp/tcp_handshake.h"

using namespace std::chrono_literals;
using namespace nexar;

namespace {

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The PEM blocks of a credential file: certificate, CA certificate, private key.
std::vector<std::string> pem_blocks(const std::string& text) {
  std::vector<std::string> out;
  size_t b = 0;
  while ((b = text.find("-----BEGIN", b)) != std::string::npos) {
    size_t e = text.find("-----END", b);
    e = text.find('\n', e);
    out.push_back(text.substr(b, e + 1 - b));
    b = e;
  }
  return out;
}

int dial(const std::string& addr) {
  quic::Address a;
  REQUIRE(quic::parse_host_port(addr, &a).ok());
  const int fd = ::socket(a.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  REQUIRE(::connect(fd, a.sa(), a.len) == 0);
  return fd;
}

// Reads until the peer closes (true) or `within` passes (false); appends what came.
bool closed_by_peer(int fd, std::chrono::milliseconds within, std::vector<uint8_t>* got = nullptr) {
  const auto until = std::chrono::steady_clock::now() + within;
  uint8_t buf[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return true;
    if (got) got->insert(got->end(), buf, buf + n);
  }
}

// Runs the dialer's side of the proof with cred toward rank 0, as far as it goes; then
// sends `forced_proof` (if any) whatever the reply said. Returns whether rank 0 closed.
bool attempt(const std::string& addr, const tcp::Credential& cred, int world, bool forced_proof) {
  const int fd = dial(addr);
  tcp::Handshake hs(&cred, world, true, 0);
  REQUIRE(::send(fd, hs.out().data(), hs.out().size(), MSG_NOSIGNAL) == static_cast<ssize_t>(hs.out().size()));
  hs.out().clear();
  bool closed = false;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (hs.state() == tcp::Handshake::State::kRunning && std::chrono::steady_clock::now() < until) {
    uint8_t buf[8192];
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      closed = true;
      break;
    }
    hs.on_bytes(buf, static_cast<size_t>(n));
  }
  if (!closed && hs.state() == tcp::Handshake::State::kDone) {  // a real proof: send it
    (void)::send(fd, hs.out().data(), hs.out().size(), MSG_NOSIGNAL);
  } else if (!closed && forced_proof) {
    const std::vector<uint8_t> zeros(tcp::kMacBytes, 0);
    (void)::send(fd, zeros.data(), zeros.size(), MSG_NOSIGNAL);
  }
  std::printf("attempt as rank %d: dialer side %s\n", cred.rank(),
              closed ? "closed" : hs.state() == tcp::Handshake::State::kDone ? "done" : hs.error().to_string().c_str());
  if (!closed) closed = closed_by_peer(fd, 10s);
  ::close(fd);
  return closed;
}

}  // namespace

TEST_CASE("rogue TCP connections are refused and the job is unharmed", "[tcp][security]") {
  security_test::AttackedJob attacked("nexar-tcp-security", {"--transport", "tcp"}, {"NEXAR_DEBUG=WARN"});
  const std::string& cred2 = attacked.cred2;
  const std::string cred1 = cred2.substr(0, cred2.rfind('/')) + "/rank-1.pem";
  const std::string addr0 = attacked.rank0_address();
  // Stalls after three bytes: dropped when the time for the proof (5 s) is up.
  const int slow = dial(addr0);
  REQUIRE(::send(slow, "NXT", 3, MSG_NOSIGNAL) == 3);
  const auto slow_start = std::chrono::steady_clock::now();

  {
    INFO("garbage");
    const int fd = dial(addr0);
    const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    REQUIRE(::send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) > 0);
    CHECK(closed_by_peer(fd, 10s));
    ::close(fd);
  }
  tls::JobCredentialFiles other;
  REQUIRE(tls::create_job_credentials(attacked.dir + "/other", "another-job", 3, &other).ok());
  std::shared_ptr<tcp::Credential> foreign, rank2, rank1_wrong_key;
  REQUIRE(tcp::Credential::load(other.rank_files[1], &foreign).ok());
  REQUIRE(tcp::Credential::load(cred2, &rank2).ok());
  {
    const std::vector<std::string> mine = pem_blocks(read_text(cred1)), theirs = pem_blocks(read_text(other.rank_files[1]));
    REQUIRE(mine.size() == 3);
    REQUIRE(theirs.size() == 3);
    REQUIRE(tcp::Credential::from_pem(mine[0] + mine[1] + theirs[2], "rank 1's certificate, a foreign key",
                                      &rank1_wrong_key).ok());
  }
  {
    INFO("another job's certificate");
    CHECK(attempt(addr0, *foreign, 3, true));
  }
  {
    INFO("rank 1's certificate without rank 1's key");
    CHECK(attempt(addr0, *rank1_wrong_key, 3, true));
  }
  {
    INFO("rank 2's real credential, rank 2 already connected");
    CHECK(attempt(addr0, *rank2, 3, false));
  }
  {
    INFO("rank 2's credential claiming rank 1 (world size 3)");
    // The HELLO says rank 2 (the credential's); claim rank 1 by hand-editing it.
    const int fd = dial(addr0);
    tcp::Handshake hs(rank2.get(), 3, true, 0);
    std::vector<uint8_t> hello = hs.out();
    const int32_t one = 1;
    std::memcpy(hello.data() + 6, &one, sizeof(one));
    REQUIRE(::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(hello.size()));
    CHECK(closed_by_peer(fd, 10s));
    ::close(fd);
  }
  tls::remove_job_credentials(other);
  {
    INFO("the stalled connection");
    CHECK(closed_by_peer(slow, 15s));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - slow_start).count();
    CHECK(s > 2);
    ::close(slow);
  }

  attacked.finish();
  // One WARN line per refusal, naming the reason (read after the job ended: all of it).
  const std::string log = attacked.job->err();
  INFO(log);
  CHECK(launcher_test::count_of(log, "refusing a TCP connection") >= 6);
  CHECK(launcher_test::count_of(log, "bad magic") >= 1);
  CHECK(launcher_test::count_of(log, "certificate rejected") >= 1);
  CHECK(launcher_test::count_of(log, "MAC mismatch") >= 1);
  CHECK(launcher_test::count_of(log, "no connect proof within") >= 1);
}
