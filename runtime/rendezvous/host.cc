// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "rendezvous/host.h"

#include "core/log.h"
#include "core/thread_name.h"

namespace nexar::rendezvous {

Status Host::start(std::shared_ptr<tls::Context> tls, const std::string& bind_ip,
                   std::function<std::string()> status_json, std::unique_ptr<Host>* out) {
  if (tls->self().rank != tls::kLauncherRank)
    return Status(NEXAR_ERR_AUTH, "a rendezvous needs the launcher's credential, not " + tls->self().to_string());
  std::unique_ptr<Host> h(new Host());
  quic::EndpointConfig config = quic::endpoint_config_from_params(std::move(tls));
  config.bind_address = bind_ip;
  config.accept_alpns = {"h3"};
  NX_RETURN_IF_ERROR(quic::Endpoint::create(config, &h->endpoint_).with_context("rendezvous endpoint"));
  h->endpoint_->post([] { name_this_thread("nexar-rdv"); });
  NX_RETURN_IF_ERROR(
      Server::start(h->endpoint_.get(), std::move(status_json), &h->server_).with_context("rendezvous server"));
  h->address_ = h->endpoint_->local_address();
  *out = std::move(h);
  return Status::Ok();
}

Host::~Host() {
  // The server first: it detaches from the endpoint's connections and its timer, so the
  // endpoint's own teardown then has nothing left to call back into.
  server_.reset();
  endpoint_.reset();
}

}  // namespace nexar::rendezvous
