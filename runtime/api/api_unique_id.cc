// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Starting without nexrun: nexar_get_unique_id and nexar_init_rank (bootstrap/unique_id_job.h).
#include "api/api_state.h"
#include "bootstrap/unique_id_job.h"
#include "core/log.h"
#include "core/params.h"

using nexar::Status;
using nexar::api::finish;

static_assert(sizeof(nexar_unique_id_t) == nexar::bootstrap::kUniqueIdBytes);

extern "C" {

NEXAR_API nexar_result_t nexar_get_unique_id(nexar_unique_id_t* id) {
  if (!id) return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_get_unique_id: id is NULL"));
  nexar::params::check_environment();
  nexar::bootstrap::UniqueId made;
  Status st = nexar::bootstrap::make_unique_id(&made);
  if (st.ok()) st = nexar::bootstrap::encode_unique_id(made, id->bytes);
  return finish(nullptr, st.with_context("nexar_get_unique_id"));
}

NEXAR_API nexar_result_t nexar_init_rank(const nexar_unique_id_t* id, int rank, int size, nexar_comm_t* world) {
  if (!world) return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_init_rank: world is NULL"));
  *world = nullptr;
  if (!id) return finish(nullptr, Status(NEXAR_ERR_INVALID_ARGUMENT, "nexar_init_rank: id is NULL"));
  nexar::params::check_environment();
  nexar::params::log_set_params();
  nexar::bootstrap::UniqueId uid;
  nexar::bootstrap::LaunchInfo info;
  Status st = nexar::bootstrap::decode_unique_id(id->bytes, &uid);
  if (st.ok()) st = nexar::bootstrap::unique_id_launch(uid, rank, size, &info);
  nexar_result_t r = nexar::api::start_world(info, st, "nexar_init_rank", world);
  if (r == NEXAR_SUCCESS) nexar::bootstrap::unique_id_world_formed(uid.job_id);
  return r;
}

}  // extern "C"
