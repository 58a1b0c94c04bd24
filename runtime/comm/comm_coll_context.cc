// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "comm/comm_coll_context.h"

#include <algorithm>
#include <functional>

#include "collectives/select.h"
#include "comm/coll_descriptor.h"
#include "comm/coll_trace.h"
#include "core/fault.h"
#include "core/params.h"

namespace nexar::comm {

CommCollContext::CommCollContext(Comm& comm, uint32_t seq, uint64_t descriptor)
    : comm_(comm), seq_(seq), descriptor_(descriptor) {}

CommCollContext::~CommCollContext() {
  if (!transfers_) return;
  // Only an algorithm that returned an error of its own (not a transfer's) leaves some.
  for_each_request([this](p2p::RequestPtr& r) {
    if (!r->is_done()) comm_.engine().cancel(r, Status(NEXAR_ERR_ABORTED, "collective abandoned after an error"));
  });
  for (p2p::RequestPtr* r : transfers_->overflow) delete r;
}

template <class Fn>
void CommCollContext::for_each_request(const Fn& fn) {
  if (!transfers_) return;
  for (p2p::RequestPtr& r : transfers_->slots)
    if (r) fn(r);
  for (p2p::RequestPtr* r : transfers_->overflow)
    if (*r) fn(*r);
}

size_t CommCollContext::unfinished() const {
  size_t n = 0;
  if (!transfers_) return n;
  for (const p2p::RequestPtr& r : transfers_->slots) n += r && !r->is_done();
  for (const p2p::RequestPtr* r : transfers_->overflow) n += *r && !(*r)->is_done();
  return n;
}

Status CommCollContext::end_on_error(Status st) {
  if (st.ok() || !failure_.ok()) return st;
  failure_ = st;
  if (!transfers_) return st;
  const Status why(NEXAR_ERR_ABORTED, "collective abandoned after an error: " + st.to_string());
  for_each_request([&](p2p::RequestPtr& r) {
    if (!r->is_done()) comm_.engine().cancel(r, why);  // returns once no link touches r's buffer
  });
  return st;
}

void CommCollContext::track(coll::Pending* out, p2p::RequestPtr req) {
  if (!transfers_) transfers_.emplace();
  for (p2p::RequestPtr& slot : transfers_->slots) {
    if (!slot) {
      slot = std::move(req);
      out->impl = &slot;
      return;
    }
  }
  auto* r = new p2p::RequestPtr(std::move(req));
  transfers_->overflow.push_back(r);
  out->impl = r;
}

Status CommCollContext::engine_tag(int tag, int* out) const {
  if (tag < 0 || tag >= (1 << p2p::kCollSeqShift))
    return Status(NEXAR_ERR_INTERNAL, strprintf("collective step tag %d out of range", tag));
  *out = static_cast<int>((seq_ << p2p::kCollSeqShift) | static_cast<uint32_t>(tag));
  return Status::Ok();
}

Status CommCollContext::isend(int peer, int tag, const void* buf, size_t bytes, coll::Pending* out) {
  out->impl = nullptr;
  if (!failure_.ok()) return failure_;
  int t = 0;
  NX_RETURN_IF_ERROR(end_on_error(engine_tag(tag, &t)));
  tell_engine();
  deadline();  // counts from the first transfer
  p2p::RequestPtr req;
  NX_RETURN_IF_ERROR(end_on_error(comm_.isend(comm_.coll_context(), buf, bytes, peer, t, &req, descriptor_)));
  track(out, std::move(req));
  return Status::Ok();
}

Status CommCollContext::irecv(int peer, int tag, void* buf, size_t bytes, coll::Pending* out) {
  out->impl = nullptr;
  if (!failure_.ok()) return failure_;
  int t = 0;
  NX_RETURN_IF_ERROR(end_on_error(engine_tag(tag, &t)));
  tell_engine();
  deadline();
  p2p::RequestPtr req;
  NX_RETURN_IF_ERROR(end_on_error(comm_.irecv(comm_.coll_context(), buf, bytes, peer, t, &req, &descriptor_)));
  track(out, std::move(req));
  return Status::Ok();
}

Status CommCollContext::wait(coll::Pending* p) {
  auto* req = static_cast<p2p::RequestPtr*>(p->impl);
  if (!req) return Status(NEXAR_ERR_INTERNAL, "wait on a transfer that never started");
  p->impl = nullptr;
  fault::kill_point("collective");  // testing only (NEXAR_FAULT_KILL)
  Status st = failure_;  // set: the transfer was cancelled with the rest, the algorithm is told why
  if (st.ok()) st = wait_one(*req);
  release(req);
  return end_on_error(st);
}

Status CommCollContext::wait_one(const p2p::RequestPtr& req) {
  const p2p::Request& r = *req;
  int64_t t0 = 0;
  int waited = -1;  // recorded: the comm rank this wait blocks on
  if (rec_ && !req->is_done()) {
    waited = comm_.comm_rank_of_world(r.kind == p2p::Request::Kind::SEND ? r.peer : r.src_filter);
    wait_begin(waited, &t0);
  }
  Status st = comm_.wait(req, deadline());
  if (waited != -1) wait_end(waited, t0);
  if (st.code() == NEXAR_ERR_INVALID_ARGUMENT) {  // longer than expected: ranks disagree
    st = comm_.fail(Status(NEXAR_ERR_MISMATCH, "collective data longer than expected: " + st.message()));
  } else if (st.ok() && r.kind == p2p::Request::Kind::RECV && r.bytes != r.capacity) {
    st = comm_.fail(Status(NEXAR_ERR_MISMATCH,
                           strprintf("rank %d sent %zu bytes of collective data where rank %d expected %zu",
                                     comm_.comm_rank_of_world(r.source), r.bytes, comm_.rank(), r.capacity)));
  }
  return st;
}

void CommCollContext::release(p2p::RequestPtr* req) {
  // A Pending's slot exists: transfers_ was made when it was tracked.
  const p2p::RequestPtr* inline_slots = transfers_->slots.data();
  if (!std::less<>()(req, inline_slots) && std::less<>()(req, inline_slots + kInlineSlots)) {
    req->reset();
  } else {
    std::vector<p2p::RequestPtr*>& overflow = transfers_->overflow;
    overflow.erase(std::find(overflow.begin(), overflow.end(), req));
    delete req;
  }
}

void CommCollContext::tell_engine() {
  if (engine_told_) return;
  engine_told_ = true;
  comm_.engine().set_collective(comm_.coll_context(), seq_, descriptor_, describe_mismatch);
}

coll::ShmSlots* CommCollContext::shm_slots() {
  SlotArea* a = comm_.slot_area();
  if (!a) return nullptr;
  if (!slots_view_) slots_view_.emplace(*this, comm_, *a, descriptor_);
  return &*slots_view_;
}

namespace {

// Numbers a collective, records it (desc) and runs body(seq, record) unless comm is broken
// (looked at unless checked).
template <class Body>
Status run_numbered(Comm& comm, const trace::CallDesc& desc, uint64_t queued_id, bool checked, const Body& body) {
  // A call on a broken communicator is recorded too (failed at once, with its number).
  Status st = checked ? Status::Ok() : comm.check_usable();
  const uint32_t seq = comm.next_collective_seq();
  trace::CommRecorder& r = comm.recorder();
  trace::CallRecord* rec = r.on() ? r.begin_collective(desc, seq, queued_id) : nullptr;
  if (st.ok()) st = body(seq, rec);
  r.end(rec, st);
  return st;
}

// The body of collective seq (described by descriptor, recorded in rec): on one rank its
// one copy at once, with no context to build or algorithm to choose; else the algorithm
// *choice when one is given (algo set), chosen otherwise and kept in *choice.
Status run_algorithm(Comm& comm, const coll::CollArgs& args, uint32_t seq, trace::CallRecord* rec,
                     uint64_t descriptor, coll::Choice* choice) {
  if (comm.size() == 1) {
    if (const coll::AlgoDesc* d = coll::one_rank_algo(args.kind, &comm.choice_cache())) {
      trace::CommRecorder::set_algo(rec, d->name);
      return coll::run_one_rank(*d, args, coll_transport(comm));
    }
  }
  CommCollContext ctx(comm, seq, descriptor);
  ctx.set_record(rec);
  Status st = choice->algo ? coll::run_choice(ctx, args, *choice)
                           : coll::select_and_run(ctx, args, &comm.choice_cache(), choice);
  if (!st.ok()) st = comm.fail(st);  // a success is not copied through fail()
  return st;
}

}  // namespace

Status run_collective(Comm& comm, const coll::CollArgs& args, uint64_t queued_id, bool checked) {
  const CallWords w = comm.call_words().get(args, comm.size());
  coll::Choice choice;
  return run_numbered(comm, w.desc, queued_id, checked, [&](uint32_t seq, trace::CallRecord* rec) {
    return run_algorithm(comm, args, seq, rec, w.descriptor, &choice);
  });
}

Status run_passed_call(Comm& comm, const coll::CollArgs& args, PassedRun& run) {
  const uint64_t gen = params::generation();
  if (run.generation != gen || run.slots != comm.slot_area()) run = PassedRun{run.words, {}, gen, comm.slot_area()};
  return run_numbered(comm, run.words.desc, 0, true, [&](uint32_t seq, trace::CallRecord* rec) {
    return run_algorithm(comm, args, seq, rec, run.words.descriptor, &run.choice);
  });
}

Status run_outside(Comm& comm, const coll::CollArgs& args, const char* algo, const std::function<Status()>& body) {
  return run_numbered(comm, coll_desc(args, comm.size()), 0, false, [&](uint32_t, trace::CallRecord* rec) {
    trace::CommRecorder::set_algo(rec, algo);
    return body();
  });
}

}  // namespace nexar::comm
