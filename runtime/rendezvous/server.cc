// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// rendezvous::Server: accepts "h3" connections on the launcher's endpoint, one
// H3ServerApp each, all sharing one Service on the progress thread. Long-poll deadlines
// come from a DeadlineTimer thread that posts Service::expire to the progress thread.
#include <future>
#include <mutex>
#include <unordered_map>

#include "core/log.h"
#include "rendezvous/deadline_timer.h"
#include "rendezvous/h3_server_app.h"
#include "rendezvous/rendezvous.h"

namespace nexar::rendezvous {
namespace {

// State that lives as long as the Server or any of its connections (shared by the Server,
// each app until its connection closed, and posted tasks); touched on the progress
// thread only, except `timer`, which is guarded by timer_mu.
struct ServerCore : std::enable_shared_from_this<ServerCore> {
  quic::Endpoint* endpoint;
  Service service;
  std::unordered_map<H3ServerApp*, std::shared_ptr<H3ServerApp>> apps;
  bool stopping = false;
  DeadlineTimer* timer = nullptr;  // guarded by timer_mu (the timer thread stops first)
  std::mutex timer_mu;

  ServerCore(quic::Endpoint* ep, std::function<std::string()> status_json)
      : endpoint(ep), service(std::move(status_json), [this](KvStore::Clock::time_point t) { arm(t); }) {}

  void arm(KvStore::Clock::time_point t) {
    std::lock_guard<std::mutex> lock(timer_mu);
    if (timer) timer->arm(t);
  }

  quic::Application* accept(quic::Connection& conn) {
    if (stopping) return nullptr;
    std::string peer = conn.peer().to_string() + " at " + conn.peer_address();
    // The app keeps the core (and so the Service) alive until its connection is gone.
    std::shared_ptr<ServerCore> self = shared_from_this();
    auto app = std::make_shared<H3ServerApp>(&service, peer, [self](H3ServerApp* gone) { self->release(gone); });
    Status st = app->start(conn);
    if (!st.ok()) {
      NX_WARN(BOOT, "rendezvous: refusing %s: %s", peer.c_str(), st.to_string().c_str());
      return nullptr;
    }
    NX_INFO(BOOT, "rendezvous: client %s connected", peer.c_str());
    service.client_connected();
    apps.emplace(app.get(), app);
    return app.get();
  }

  // The app's connection is gone: drop it once its on_closed has returned.
  void release(H3ServerApp* gone) {
    auto it = apps.find(gone);
    if (it == apps.end()) return;
    std::shared_ptr<H3ServerApp> keep = std::move(it->second);
    apps.erase(it);
    endpoint->post([keep] {});
  }

  void stop() {
    stopping = true;  // the accept handler refuses from now on
    // Copy: close() may call on_closed (and so release) at once.
    std::vector<std::shared_ptr<H3ServerApp>> live;
    for (auto& [p, app] : apps) live.push_back(app);
    for (auto& app : live) {
      if (quic::Connection* c = app->conn()) c->close(0, "rendezvous server stopped");
    }
  }
};

// Posts to the endpoint only while it exists. A LinkGuard rides in the accept handler,
// which the endpoint destroys with itself: nexrun may destroy the endpoint before the
// Server, and the timer thread must not post into a freed one. Lock order: link->mu,
// then the endpoint's own lock (inside post).
struct EndpointLink {
  std::mutex mu;
  quic::Endpoint* endpoint;
  bool gone = false;
};
struct LinkGuard {
  std::shared_ptr<EndpointLink> link;
  ~LinkGuard() {
    std::lock_guard<std::mutex> lock(link->mu);
    link->gone = true;
  }
};

class ServerImpl : public Server {
 public:
  ServerImpl(std::shared_ptr<ServerCore> core, std::shared_ptr<EndpointLink> link)
      : core_(std::move(core)), link_(std::move(link)) {
    std::weak_ptr<ServerCore> weak = core_;
    std::shared_ptr<EndpointLink> l = link_;
    timer_ = std::make_unique<DeadlineTimer>([weak, l] {
      std::lock_guard<std::mutex> lock(l->mu);
      if (l->gone) return;
      l->endpoint->post([weak] {
        if (auto core = weak.lock()) core->service.expire(KvStore::Clock::now());
      });
    });
    std::lock_guard<std::mutex> lock(core_->timer_mu);
    core_->timer = timer_.get();
  }

  ~ServerImpl() override {
    {
      std::lock_guard<std::mutex> lock(core_->timer_mu);
      core_->timer = nullptr;
    }
    timer_.reset();
    std::unique_lock<std::mutex> lock(link_->mu);
    if (link_->gone) return;  // the endpoint closed every connection already
    quic::Endpoint* ep = link_->endpoint;
    if (ep->on_progress_thread()) {
      lock.unlock();
      core_->stop();
      return;
    }
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> f = done->get_future();
    std::shared_ptr<ServerCore> core = core_;
    ep->post([core, done] {
      core->stop();
      done->set_value();
    });
    lock.unlock();
    if (f.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      NX_WARN(BOOT, "rendezvous: the progress thread did not stop the server within 10 s");
    }
  }

  void post(std::function<void(Service&)> fn) override {
    std::lock_guard<std::mutex> lock(link_->mu);
    if (link_->gone) return;
    std::weak_ptr<ServerCore> weak = core_;
    link_->endpoint->post([weak, fn = std::move(fn)] {
      if (auto core = weak.lock(); core && !core->stopping) fn(core->service);
    });
  }

 private:
  std::shared_ptr<ServerCore> core_;
  std::shared_ptr<EndpointLink> link_;
  std::unique_ptr<DeadlineTimer> timer_;
};

}  // namespace

Status Server::start(quic::Endpoint* endpoint, std::function<std::string()> status_json,
                     std::unique_ptr<Server>* out) {
  if (!endpoint || !out) return Status(NEXAR_ERR_INVALID_ARGUMENT, "rendezvous server: null endpoint or out");
  auto core = std::make_shared<ServerCore>(endpoint, std::move(status_json));
  auto link = std::make_shared<EndpointLink>();
  link->endpoint = endpoint;
  auto server = std::make_unique<ServerImpl>(core, link);
  std::shared_ptr<LinkGuard> guard(new LinkGuard{link});
  // The handler stays installed after the Server is gone (refusing): replacing it would
  // destroy the guard under the endpoint's lock, against the timer's lock order.
  std::weak_ptr<ServerCore> weak = core;
  endpoint->set_accept_handler([weak, guard](quic::Connection& conn) -> quic::Application* {
    auto c = weak.lock();
    return c ? c->accept(conn) : nullptr;
  });
  NX_INFO(BOOT, "rendezvous: serving HTTP/3 at %s", endpoint->local_address().c_str());
  *out = std::move(server);
  return Status::Ok();
}

}  // namespace nexar::rendezvous
