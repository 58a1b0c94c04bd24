#include "launcher/rendezvous_service.h"

#include <unistd.h>

#include "core/log.h"
#include "launcher/output_forwarder.h"
#include "transport/tls/tls_context.h"

namespace nexar::launcher {

Status RendezvousService::start(const std::string& launcher_credential_file, JobStatus* status,
                                const std::string& bind_ip) {
  std::shared_ptr<tls::Context> tls;
  NX_RETURN_IF_ERROR(tls::Context::load(launcher_credential_file, &tls).with_context("rendezvous credential"));
  quic::EndpointConfig config = quic::endpoint_config_from_params(tls);
  config.bind_address = bind_ip;  // one host: the service never leaves loopback
  config.accept_alpns = {"h3"};
  NX_RETURN_IF_ERROR(quic::Endpoint::create(config, &endpoint_).with_context("rendezvous endpoint"));
  NX_RETURN_IF_ERROR(
      rendezvous::Server::start(endpoint_.get(), [status] { return status->to_json(); }, &server_)
          .with_context("rendezvous server"));
  address_ = endpoint_->local_address();
  hangs_ = std::make_unique<HangCollector>(status, [](const std::string& text) {
    write_fully(STDERR_FILENO, text.data(), text.size());
  });
  hangs_->attach(server_.get());
  status_ = status;
  status->set_end_observer([hangs = hangs_.get()](int rank) { hangs->rank_ended(rank); });
  NX_INFO(LAUNCH, "rendezvous service at %s", address_.c_str());
  return Status::Ok();
}

void RendezvousService::stop() {
  // The server first: it detaches from the endpoint's connections and its timer, so the
  // endpoint's own teardown then has nothing left to call back into.
  if (status_) status_->set_end_observer(nullptr);
  hangs_.reset();
  server_.reset();
  endpoint_.reset();
}

}  // namespace nexar::launcher
