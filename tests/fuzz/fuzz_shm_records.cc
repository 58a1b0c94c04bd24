// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The shared-memory record reader: the bytes a peer on this host writes into its ring in
// our inbox (transport/shm/ring.h, records.h). The input is a series of writes; each puts
// its bytes into the ring at the producer's position and publishes a head (the honest one
// after them, or any value the input names), then the reader runs. Promises: RingReader
// hands out only records inside the ring and before the head, and stops; ShmLink gives the
// sink only payloads inside their record, fails on a malformed record with
// NEXAR_ERR_PROTOCOL, and finishes every large message it began exactly once.
//
// Input: byte 0 picks the ring size (64 << (b % 7) bytes); then writes, each
//   u8 mode (bit 0: the head that follows is published instead of the honest one),
//   [u64 head], u16 length (little-endian), that many bytes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "fuzz_input.h"
#include "transport/shm/shm_link.h"

using namespace nexar;
using namespace nexar::shm;

namespace {

constexpr size_t kMaxBound = 1u << 20;  // larger payloads are discarded, as a too-long message is

// What the sink keeps of a large message while the link places it.
struct FakeMsg {
  uint64_t len;
  std::vector<uint8_t> buf;
};

FakeMsg* fake(transport::InboundMsg* m) { return reinterpret_cast<FakeMsg*>(m); }

class Sink final : public transport::PlacementSink {
 public:
  Sink(const uint8_t* ring, size_t cap) : ring_(ring), cap_(cap) {}
  bool on_message(int, const transport::MsgHeader& h, const uint8_t* data) override {
    fuzz::require(h.len == 0 || (data >= ring_ && h.len <= cap_ && data + h.len <= ring_ + cap_),
                  "a message's payload inside the ring");
    return true;
  }
  transport::InboundMsg* on_message_begin(int, const transport::MsgHeader& h) override {
    ++open;
    return reinterpret_cast<transport::InboundMsg*>(new FakeMsg{h.len, {}});
  }
  bool on_message_data(transport::InboundMsg*, const uint8_t*, size_t) override { return true; }
  void on_message_abandon(transport::InboundMsg* m, const Status& st) override { finish_placement(m, st); }
  void on_peer_lost(int, const Status& why) override { lost = why; }
  void on_remote_abort(int, uint32_t, const Status& why) override {
    fuzz::require(why.message().size() <= kMaxAbortText, "an abort's text within its bound");
  }
  transport::Placement claim_placement(transport::InboundMsg* m, uint8_t** dst) override {
    FakeMsg* f = fake(m);
    if (f->len > kMaxBound) return transport::Placement::DISCARD;
    f->buf.resize(f->len);  // exactly: a write past it is an ASan finding
    *dst = f->buf.data();
    return transport::Placement::BOUND;
  }
  void finish_placement(transport::InboundMsg* m, const Status&) override {
    --open;
    delete fake(m);  // a second finish is a double free
  }
  void release_placement(transport::InboundMsg*) override {}
  uint64_t bind_generation() const override { return 0; }

  int open = 0;  // large messages begun and not yet finished
  Status lost;

 private:
  const uint8_t* ring_;
  size_t cap_;
};

// One inbox with one ring (ours, or the peer's), zeroed and initialised as its owner does.
// Made once per ring size and role and zeroed again for each input: a fresh allocation of
// its ~45 KB per input was most of an execution (the sanitizer's allocator maps large
// blocks anew, and every page faults in), about 150 inputs a second.
struct Inbox {
  explicit Inbox(size_t ring_bytes) : ring_bytes(ring_bytes), bytes(round_up(inbox_bytes(1, ring_bytes, 0), kPage)) {
    view.base = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes));
    reset();
  }
  ~Inbox() { std::free(view.base); }
  void reset() {
    std::memset(view.base, 0, bytes);
    InboxHeader* h = new (view.base) InboxHeader{};
    h->version = kInboxVersion;
    h->nslots = 1;
    h->ring_bytes = ring_bytes;
    new (view.slot(0)) SlotCtl{};
  }
  size_t ring_bytes, bytes;
  InboxView view;
};

// The inbox of a role (0: ours, 1: the peer's) for a ring size, zeroed.
InboxView fresh_inbox(int role, size_t ring_bytes) {
  static std::map<std::pair<int, size_t>, std::unique_ptr<Inbox>> made;
  std::unique_ptr<Inbox>& in = made[{role, ring_bytes}];
  if (!in) in = std::make_unique<Inbox>(ring_bytes);
  else in->reset();
  return in->view;
}

// The producer's side, driven by the input: writes bytes at its position, publishes a head.
struct Producer {
  SlotCtl* ctl;
  uint8_t* ring;
  size_t cap;
  uint64_t head = 0;
  void write(const uint8_t* p, size_t n, bool lie, uint64_t lie_head) {
    for (size_t i = 0; i < n; ++i) ring[(head + i) & (cap - 1)] = p[i];
    head = lie ? lie_head : head + n;
    ctl->head.store(head, std::memory_order_release);
  }
};

struct Write {
  bool lie;
  uint64_t head;
  const uint8_t* data;
  size_t n;
};

std::vector<Write> parse(const uint8_t* data, size_t size, size_t cap) {
  std::vector<Write> out;
  size_t at = 1;
  while (at < size) {
    Write w{(data[at++] & 1) != 0, 0, nullptr, 0};
    if (w.lie) {
      if (size - at < 8) break;
      std::memcpy(&w.head, data + at, 8);
      at += 8;
    }
    if (size - at < 2) break;
    size_t n = data[at] | size_t{data[at + 1]} << 8;
    at += 2;
    n = std::min({n, size - at, cap});
    w.data = data + at;
    w.n = n;
    at += n;
    out.push_back(w);
  }
  return out;
}

// RingReader alone, over a ring allocated to its exact size. True if it found a bad header.
bool read_ring(const std::vector<Write>& writes, size_t cap) {
  alignas(64) SlotCtl ctl{};
  std::vector<uint8_t> ring(cap);
  Producer prod{&ctl, ring.data(), cap};
  RingReader reader(&ctl, ring.data(), cap);
  for (const Write& w : writes) {
    prod.write(w.data, w.n, w.lie, w.head);
    bool bad = false;
    while (const RecHdr* h = reader.peek(&bad)) {
      const auto* p = reinterpret_cast<const uint8_t*>(h);
      fuzz::require(p >= ring.data() && h->size >= sizeof(RecHdr) && p + h->size <= ring.data() + cap,
                    "a record inside the ring");
      fuzz::require(h->type != kRecPad, "padding is skipped");
      reader.consume();
    }
    if (bad) return true;
  }
  return false;
}

// ShmLink over two inboxes; the peer's inbox is drained as the peer would (what the link
// writes there must be well formed).
void read_link(const std::vector<Write>& writes, size_t cap, bool ring_bad) {
  const InboxView mine = fresh_inbox(0, cap), theirs = fresh_inbox(1, cap);
  Sink sink(mine.ring(0), cap);
  {
    LinkConfig cfg;
    cfg.self_rank = 0;
    cfg.peer = 1;
    cfg.peer_pid = 0;
    cfg.sink = &sink;
    cfg.mine = mine;
    cfg.theirs = theirs;
    cfg.cma = false;  // large payloads come as DATA records
    cfg.eager_limit = cap / 4;
    cfg.chunk = cap / 4;
    ShmLink link(cfg);
    Producer prod{mine.slot(0), mine.ring(0), cap};
    RingReader peer(theirs.slot(0), theirs.ring(0), cap);
    for (const Write& w : writes) {
      prod.write(w.data, w.n, w.lie, w.head);
      for (int i = 0; i < 64 && !link.dead(); ++i) {
        const bool moved = link.poll();
        bool bad = false;
        while (peer.peek(&bad)) peer.consume();
        fuzz::require(!bad, "the link writes well-formed records");
        if (!moved) break;
      }
      if (link.dead()) break;
    }
    // A link whose peer already said goodbye fails quietly (the peer is leaving; the
    // shutdown path, not a peer-lost report, handles it).
    if (!link.dead())
      fuzz::require(!ring_bad, "a bad record header fails the link");
    else if (!link.bye_received())
      fuzz::require(sink.lost.code() == NEXAR_ERR_PROTOCOL && !sink.lost.message().empty(),
                    "a malformed record is a named PROTOCOL error");
  }
  fuzz::require(sink.open == 0, "every large message begun is finished once");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t cap = size_t{64} << (data[0] % 7);
  const std::vector<Write> writes = parse(data, size, cap);
  read_link(writes, cap, read_ring(writes, cap));
  return 0;
}
