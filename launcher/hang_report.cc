// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "launcher/hang_report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/status.h"
#include "launcher/json_value.h"

namespace nexar::launcher {
namespace {

struct Call {
  int64_t seq = -1;
  std::string kind, state, algo, dtype, op;
  int64_t count = -1, bytes = -1, peer = -1, tag = -1;
  std::vector<int> waiting_on;  // world ranks
  bool done() const { return state == "done"; }
  bool transfer() const {
    return kind == "send" || kind == "recv" || kind == "isend" || kind == "irecv" || kind == "sendrecv";
  }
  // Not a collective: numbered apart from the collectives' sequence (point to point, and
  // the fault-tolerance calls).
  bool p2p() const { return transfer() || kind == "agree" || kind == "shrink" || kind == "revoke" || kind == "rebuild"; }
  std::string name() const { return strprintf("%s #%lld", kind.c_str(), static_cast<long long>(seq)); }
};

// One rank's view of one communicator.
struct CommView {
  int64_t ctx = -1;
  int size = 0;
  std::vector<int> members;    // world ranks
  std::optional<Call> pending;  // the oldest collective not done
  std::optional<Call> pending_p2p;
  std::optional<Call> last_done;  // the newest collective done
  int64_t max_seq = -1;           // the newest collective entered
};

struct RankView {
  bool answered = false;
  std::string note, host, current;
  int64_t pid = -1;
  std::map<int64_t, CommView> comms;  // by ctx
};

Call read_call(const JsonValue& c, const std::vector<int>& members) {
  Call call;
  call.seq = c["seq"].integer();
  call.kind = c["kind"].text("call");
  call.state = c["state"].text("?");
  call.algo = c["algo"].text();
  call.dtype = c["dtype"].text();
  call.op = c["op"].text();
  call.count = c["count"].integer();
  call.bytes = c["bytes"].integer();
  call.peer = c["peer"].integer();
  call.tag = c["tag"].integer();
  for (const JsonValue& w : c["waiting_on"].array) {
    const int64_t r = w.integer();
    if (r >= 0 && static_cast<size_t>(r) < members.size()) call.waiting_on.push_back(members[static_cast<size_t>(r)]);
  }
  return call;
}

RankView read_rank(const RankAnswer& a) {
  RankView v;
  v.note = a.note;
  if (!a.answered) return v;
  JsonValue doc;
  std::string error;
  if (!parse_json(a.record, &doc, &error)) {
    v.note = "sent a record that is not JSON (" + error + ")";
    return v;
  }
  v.answered = true;
  v.host = doc["host"].text();
  v.pid = doc["pid"].integer();
  v.current = doc["current"].text("unknown");
  if (!doc["error"].is_null()) v.note = doc["error"].text();
  for (const JsonValue& c : doc["comms"].array) {
    CommView cv;
    cv.ctx = c["ctx"].integer();
    cv.size = static_cast<int>(c["size"].integer(0));
    for (const JsonValue& m : c["members"].array) cv.members.push_back(static_cast<int>(m.integer()));
    for (const JsonValue& cj : c["calls"].array) {
      Call call = read_call(cj, cv.members);
      if (call.p2p()) {
        if (!call.done() && !cv.pending_p2p) cv.pending_p2p = call;
        continue;
      }
      cv.max_seq = std::max(cv.max_seq, call.seq);
      if (call.done()) {
        if (!cv.last_done || call.seq > cv.last_done->seq) cv.last_done = call;
      } else if (!cv.pending || call.seq < cv.pending->seq) {
        cv.pending = call;
      }
    }
    v.comms[cv.ctx] = std::move(cv);
  }
  return v;
}

std::string plural(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + rank_ranges(ranks);
}

std::string comm_label(int64_t ctx, int size, int world_size) {
  return strprintf("comm 0x%llx (%s)", static_cast<unsigned long long>(ctx),
                   size == world_size ? "world" : strprintf("%d ranks", size).c_str());
}

// What rank v last completed on ctx and does now: "last completed: allreduce #6; now: outside nexar".
std::string last_and_now(const RankView& v, int64_t ctx) {
  auto it = v.comms.find(ctx);
  std::string last = it != v.comms.end() && it->second.last_done ? it->second.last_done->name() : "nothing";
  return "last completed: " + last + "; now: " + v.current;
}

// The communicator whose oldest unfinished call the most ranks wait in.
struct Stuck {
  int64_t ctx = -1;
  int size = 0;
  Call call;
  std::vector<int> waiting, never_entered, finished, silent;
};

std::optional<Stuck> find_stuck(const std::vector<RankView>& views) {
  std::set<int64_t> ctxs;
  for (const RankView& v : views)
    for (const auto& [ctx, cv] : v.comms) ctxs.insert(ctx);
  std::optional<Stuck> best;
  for (int64_t ctx : ctxs) {
    std::vector<int> members;
    std::optional<Call> oldest;
    for (const RankView& v : views) {
      auto it = v.comms.find(ctx);
      if (it == v.comms.end()) continue;
      if (members.empty()) members = it->second.members;
      if (it->second.pending && (!oldest || it->second.pending->seq < oldest->seq)) oldest = it->second.pending;
    }
    if (!oldest) continue;
    Stuck s;
    s.ctx = ctx;
    s.size = static_cast<int>(members.size());
    s.call = *oldest;
    for (int w : members) {
      const CommView* cv = nullptr;
      if (w >= 0 && static_cast<size_t>(w) < views.size()) {
        const RankView& v = views[static_cast<size_t>(w)];
        auto it = v.comms.find(ctx);
        if (v.answered && it != v.comms.end()) cv = &it->second;
      }
      if (!cv) {
        s.silent.push_back(w);
      } else if (cv->pending && cv->pending->seq == oldest->seq) {
        s.waiting.push_back(w);
      } else if (cv->max_seq < oldest->seq) {
        s.never_entered.push_back(w);
      } else {
        s.finished.push_back(w);
      }
    }
    if (!best || s.waiting.size() > best->waiting.size()) best = std::move(s);
  }
  return best;
}

// "rank 3 never entered it (last completed: allreduce #6; now: outside nexar)"; ranks
// with the same story share one clause.
std::string never_entered_clause(const std::vector<RankView>& views, const Stuck& s) {
  std::map<std::string, std::vector<int>> by_story;
  for (int w : s.never_entered) by_story[last_and_now(views[static_cast<size_t>(w)], s.ctx)].push_back(w);
  std::string out;
  for (const auto& [story, ranks] : by_story)
    out += "; " + plural(ranks) + " never entered it (" + story + ")";
  return out;
}

std::string silent_clause(const std::vector<RankView>& views, const std::vector<int>& silent) {
  std::map<std::string, std::vector<int>> by_note;
  for (int w : silent) {
    const bool known = w >= 0 && static_cast<size_t>(w) < views.size();
    const std::string& note = known ? views[static_cast<size_t>(w)].note : std::string();
    by_note[note.empty() ? "has no record of this communicator" : note].push_back(w);
  }
  std::string out;
  for (const auto& [note, ranks] : by_note) out += "; " + plural(ranks) + " " + note;
  return out;
}

std::string first_line(const std::vector<RankView>& views, int world_size) {
  if (std::optional<Stuck> s = find_stuck(views)) {
    std::string line = plural(s->waiting) + (s->waiting.size() == 1 ? " waits in " : " wait in ") + s->call.name() +
                       " on " + comm_label(s->ctx, s->size, world_size);
    line += never_entered_clause(views, *s);
    if (s->never_entered.empty()) {
      std::set<int> awaited;
      for (int w : s->waiting) {
        const CommView& cv = views[static_cast<size_t>(w)].comms.at(s->ctx);
        for (int p : cv.pending->waiting_on) awaited.insert(p);
      }
      for (int w : s->waiting) awaited.erase(w);
      if (!awaited.empty()) line += "; they wait on " + plural(std::vector<int>(awaited.begin(), awaited.end()));
    }
    if (!s->finished.empty()) line += "; " + plural(s->finished) + " finished it";
    return line + silent_clause(views, s->silent);
  }
  std::vector<int> in_p2p, silent;
  std::set<std::string> kinds;  // of the calls they wait in
  for (size_t w = 0; w < views.size(); ++w) {
    if (!views[w].answered) silent.push_back(static_cast<int>(w));
    for (const auto& [ctx, cv] : views[w].comms) {
      if (!cv.pending_p2p) continue;
      in_p2p.push_back(static_cast<int>(w));
      kinds.insert(cv.pending_p2p->transfer() ? "point-to-point calls" : cv.pending_p2p->kind);
    }
  }
  in_p2p.erase(std::unique(in_p2p.begin(), in_p2p.end()), in_p2p.end());
  std::string what;
  for (const std::string& k : kinds) what += (what.empty() ? "" : " and ") + k;
  std::string line = in_p2p.empty() ? std::string("no rank is inside a collective")
                                    : plural(in_p2p) + " wait in " + what + " (below)";
  return line + silent_clause(views, silent);
}

std::string describe_call(const Call& c) {
  std::string s = c.name() + " " + c.state;
  if (!c.algo.empty()) s += " [" + c.algo + "]";
  if (c.bytes >= 0) s += strprintf(" %lld B", static_cast<long long>(c.bytes));
  if (c.peer >= 0) s += strprintf(" peer %lld", static_cast<long long>(c.peer));
  if (c.tag >= 0) s += strprintf(" tag %lld", static_cast<long long>(c.tag));
  if (!c.waiting_on.empty()) s += " waiting on " + plural(c.waiting_on);
  return s;
}

std::string rank_line(int w, const RankView& v, int world_size) {
  std::string line = strprintf("nexrun:   rank %d", w);
  if (!v.answered) return line + ": " + (v.note.empty() ? "no record" : v.note) + "\n";
  line += strprintf(" (%s pid %lld): now %s", v.host.empty() ? "?" : v.host.c_str(), static_cast<long long>(v.pid),
                    v.current.c_str());
  for (const auto& [ctx, cv] : v.comms) {
    line += "; " + comm_label(ctx, cv.size, world_size) + ": ";
    std::vector<std::string> parts;
    if (cv.pending) parts.push_back("in " + describe_call(*cv.pending));
    if (cv.pending_p2p) parts.push_back("in " + describe_call(*cv.pending_p2p));
    parts.push_back("last completed " + (cv.last_done ? cv.last_done->name() : std::string("nothing")));
    for (size_t i = 0; i < parts.size(); ++i) line += (i ? ", " : "") + parts[i];
  }
  if (!v.note.empty()) line += " (" + v.note + ")";
  return line + "\n";
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::vector<int> r = ranks;
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  std::string out;
  for (size_t i = 0; i < r.size();) {
    size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(r[i]) : strprintf("%d-%d", r[i], r[j]);
    i = j + 1;
  }
  return out;
}

std::string hang_report(const std::string& reason, int world_size, const std::vector<RankAnswer>& answers,
                        bool* stuck) {
  std::vector<RankView> views(static_cast<size_t>(world_size));
  for (const RankAnswer& a : answers)
    if (a.rank >= 0 && a.rank < world_size) views[static_cast<size_t>(a.rank)] = read_rank(a);
  if (stuck) *stuck = find_stuck(views).has_value();
  std::string out = "nexrun: hang report: " + first_line(views, world_size) + "\n";
  out += "nexrun:   (report asked by " + reason + ")\n";
  for (int w = 0; w < world_size; ++w) out += rank_line(w, views[static_cast<size_t>(w)], world_size);
  return out;
}

}  // namespace nexar::launcher
