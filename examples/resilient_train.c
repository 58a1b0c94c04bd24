// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* Data-parallel training of a tiny linear model that survives a lost rank in place.
 *
 *   nexrun -np 4 --respawn 1 -x RESILIENT_KILL_STEP=10 -x RESILIENT_KILL_RANK=2 ./resilient_train
 *
 * Every rank holds the model (8 weights) in memory and a shard of the data; each step
 * averages the gradients with an allreduce. When RESILIENT_KILL_RANK's first process reaches
 * RESILIENT_KILL_STEP it kills itself. The survivors' allreduce fails; they call
 * nexar_comm_rebuild, which returns a world of the original size once nexrun's replacement
 * (NEXAR_RESTART_COUNT=1, whose nexar_init returns the same rebuilt world) has joined. The
 * ranks then agree on the last step every survivor completed, a survivor broadcasts the
 * model, and training goes on from there: the final model is the same as an undisturbed
 * run's, bit for bit (same shards, same reduction order). */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nexar/nexar.h"

enum { DIM = 8, STEPS = 30, SAMPLES = 64 };

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

static void must(nexar_result_t r, const char *what, nexar_comm_t c) {
  if (r == NEXAR_SUCCESS) return;
  fprintf(stderr, "resilient_train: %s: %s (%s)\n", what, nexar_result_string(r), nexar_comm_last_error(c));
  exit(1);
}

/* The gradient of the mean squared error over this rank's shard, scaled for a global mean. */
static void gradient(int rank, int size, const double *w, double *g) {
  memset(g, 0, DIM * sizeof(double));
  for (int i = 0; i < SAMPLES; ++i) {
    double x[DIM], pred = 0, target = 0;
    for (int j = 0; j < DIM; ++j) {
      x[j] = sin(0.37 * (rank * SAMPLES + i) + 1.3 * j);
      pred += w[j] * x[j];
      target += (j + 1) * 0.5 * x[j];
    }
    for (int j = 0; j < DIM; ++j) g[j] += 2 * (pred - target) * x[j] / (SAMPLES * size);
  }
}

/* The training state: the model after `step` steps, and the one before (a survivor may have
   completed one step more than another when the failure struck). */
struct state {
  double w[DIM], w_prev[DIM];
  int step, valid;
};

/* After a rebuild: every rank continues from the last step all survivors completed, with
   the model of the lowest such survivor. */
static void agree_on_state(struct state *s, nexar_comm_t world) {
  int rank, size, mine, common, root, cand;
  must(nexar_comm_rank(world, &rank), "rank", world);
  must(nexar_comm_size(world, &size), "size", world);
  mine = s->valid ? s->step : INT_MAX;
  must(nexar_allreduce(&mine, &common, 1, NEXAR_INT32, NEXAR_MIN, world), "agreeing on the step", world);
  if (s->valid && s->step > common) {  /* one step ahead: undo it */
    memcpy(s->w, s->w_prev, sizeof(s->w));
    s->step = common;
  }
  cand = s->valid ? rank : size;
  must(nexar_allreduce(&cand, &root, 1, NEXAR_INT32, NEXAR_MIN, world), "choosing the source", world);
  must(nexar_broadcast(s->w, DIM, NEXAR_FLOAT64, root, world), "sending the model", world);
  s->step = common;
  s->valid = 1;
  if (rank == 0) printf("recovered at step %d (model from rank %d)\n", common, root);
}

int main(void) {
  const int kill_step = env_int("RESILIENT_KILL_STEP", -1), kill_rank = env_int("RESILIENT_KILL_RANK", -1);
  const int incarnation = env_int("NEXAR_RESTART_COUNT", 0);
  struct state s;
  nexar_comm_t world;
  int rank, size;
  memset(&s, 0, sizeof(s));
  s.valid = incarnation == 0;
  must(nexar_init(&world), "nexar_init", NULL);
  must(nexar_comm_rank(world, &rank), "rank", world);
  must(nexar_comm_size(world, &size), "size", world);
  must(nexar_comm_set_timeout(world, 20), "timeout", world);
  if (!s.valid) {
    printf("rank %d: replacement %d joined the rebuilt world\n", rank, incarnation);
    agree_on_state(&s, world);
  }
  while (s.step < STEPS) {
    double g[DIM], sum[DIM];
    if (rank == kill_rank && s.step == kill_step && incarnation == 0) {
      printf("rank %d: dying at step %d\n", rank, s.step);
      fflush(stdout);
      raise(SIGKILL);
    }
    gradient(rank, size, s.w, g);
    nexar_result_t r = nexar_allreduce(g, sum, DIM, NEXAR_FLOAT64, NEXAR_SUM, world);
    if (r != NEXAR_SUCCESS) {
      nexar_comm_t rebuilt;
      printf("rank %d: step %d failed (%s): rebuilding\n", rank, s.step, nexar_result_string(r));
      must(nexar_comm_rebuild(world, &rebuilt), "nexar_comm_rebuild", world);
      nexar_comm_destroy(world); /* the broken world is only freed */
      world = rebuilt;
      agree_on_state(&s, world);
      continue;
    }
    memcpy(s.w_prev, s.w, sizeof(s.w));
    for (int j = 0; j < DIM; ++j) s.w[j] -= 0.1 * sum[j];
    ++s.step;
  }
  if (rank == 0) {
    printf("final model after %d steps:", s.step);
    for (int j = 0; j < DIM; ++j) printf(" %.17g", s.w[j]);
    printf("\n");
  }
  must(nexar_comm_destroy(world), "nexar_comm_destroy", NULL);
  return 0;
}
