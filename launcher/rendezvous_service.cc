// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
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
  NX_RETURN_IF_ERROR(rendezvous::Host::start(tls, bind_ip, [status] { return status->to_json(); }, &host_));
  address_ = host_->address();
  hangs_ = std::make_unique<HangCollector>(status, [](const std::string& text) {
    write_fully(STDERR_FILENO, text.data(), text.size());
  });
  hangs_->attach(&host_->server());
  status_ = status;
  status->set_end_observer([hangs = hangs_.get()](int rank) { hangs->rank_ended(rank); });
  NX_INFO(LAUNCH, "rendezvous service at %s", address_.c_str());
  return Status::Ok();
}

void RendezvousService::stop() {
  if (status_) status_->set_end_observer(nullptr);
  hangs_.reset();
  host_.reset();
}

}  // namespace nexar::launcher
