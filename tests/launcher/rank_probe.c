// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* A rank program for the launcher tests. Every mode prints "ready <rank> pid=<pid>" once set
   up, and no mode runs longer than 30 s, so nothing outlives a broken test for long.
     env [ms [r code]]    print the job environment ("env <rank> NAME=value"), stay ms
                          (rank r exits with code after 200 ms instead)
     exit <rank> <code>   that rank exits with code after 200 ms; the others wait
     raise <rank> <sig>   that rank kills itself with sig after 200 ms; the others wait
     signals              print "got <rank> <signal name>" for SIGUSR1, SIGUSR2, SIGHUP
     exit-on-usr1 <code>  wait; exit with code on SIGUSR1
     ignore-term          ignore SIGTERM and wait
     grandchild           start a child that waits too; print its pid as child=<pid>
     sleep <ms>           wait ms, exit 0
     print <lines>        that many numbered lines to stdout and stderr, then a partial line
     restart <rank> <code> <until> <ms>   print "restart <rank> count=<NEXAR_RESTART_COUNT>
                          torch=<TORCHELASTIC_RESTART_COUNT> rdv=<NEXAR_RENDEZVOUS>"; that rank exits with code after
                          200 ms while its restart count is below until (else 0 after 200 ms);
                          the others exit 0 after ms */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got[65];

static void on_signal(int sig) { got[sig] = 1; }

static int env_int(const char *name) {
  const char *v = getenv(name);
  return v ? atoi(v) : -1;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void ready(int rank) {
  printf("ready %d pid=%d\n", rank, (int)getpid());
  fflush(stdout);
}

static const char *const kEnvNames[] = {
    "NEXAR_RANK", "NEXAR_WORLD_SIZE", "NEXAR_LOCAL_RANK", "NEXAR_LOCAL_SIZE", "NEXAR_NODE_RANK",
    "NEXAR_NUM_NODES", "NEXAR_JOB_ID", "NEXAR_RENDEZVOUS", "NEXAR_CREDENTIALS", "RANK", "WORLD_SIZE",
    "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "NEXAR_RESTART_COUNT",
    "TORCHELASTIC_RESTART_COUNT", "OMP_NUM_THREADS", NULL};

static int wait_signals(int rank) {
  const int sigs[] = {SIGUSR1, SIGUSR2, SIGHUP};
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  for (int i = 0; i < 3; ++i) sigaction(sigs[i], &sa, NULL);
  ready(rank);
  for (int t = 0; t < 3000; ++t) {
    sleep_ms(10);
    for (int i = 0; i < 3; ++i) {
      if (got[sigs[i]]) {
        got[sigs[i]] = 0;
        printf("got %d %s\n", rank, sigabbrev_np(sigs[i]));
        fflush(stdout);
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  const int rank = env_int("NEXAR_RANK");
  const char *mode = argc > 1 ? argv[1] : "";
  const long arg1 = argc > 2 ? atol(argv[2]) : 0;
  const long arg2 = argc > 3 ? atol(argv[3]) : 0;
  if (strcmp(mode, "env") == 0) {
    for (int i = 0; kEnvNames[i]; ++i) {
      const char *v = getenv(kEnvNames[i]);
      printf("env %d %s=%s\n", rank, kEnvNames[i], v ? v : "(unset)");
    }
    ready(rank);
    if (argc > 4 && rank == arg2) {
      sleep_ms(200);
      return atoi(argv[4]);
    }
    sleep_ms(arg1);
    return 0;
  }
  if (strcmp(mode, "exit") == 0 || strcmp(mode, "raise") == 0) {
    ready(rank);
    if (rank == arg1) {
      sleep_ms(200);
      if (mode[0] == 'e') return (int)arg2;
      raise((int)arg2);
    }
    sleep_ms(30000);
    return 0;
  }
  if (strcmp(mode, "restart") == 0 && argc > 5) {
    const int count = env_int("NEXAR_RESTART_COUNT");
    printf("restart %d count=%d torch=%d rdv=%s\n", rank, count, env_int("TORCHELASTIC_RESTART_COUNT"),
           getenv("NEXAR_RENDEZVOUS") ? getenv("NEXAR_RENDEZVOUS") : "-");
    ready(rank);
    if (rank == arg1) {
      sleep_ms(200);
      return count < atoi(argv[4]) ? (int)arg2 : 0;
    }
    sleep_ms(atol(argv[5]));
    return 0;
  }
  if (strcmp(mode, "signals") == 0) return wait_signals(rank);
  if (strcmp(mode, "exit-on-usr1") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    ready(rank);
    for (int t = 0; t < 3000 && !got[SIGUSR1]; ++t) sleep_ms(10);
    return got[SIGUSR1] ? (int)arg1 : 0;
  }
  if (strcmp(mode, "ignore-term") == 0) {
    signal(SIGTERM, SIG_IGN);
    ready(rank);
    sleep_ms(30000);
    return 0;
  }
  if (strcmp(mode, "grandchild") == 0) {
    pid_t child = fork();
    if (child == 0) {
      sleep_ms(30000);
      _exit(0);
    }
    printf("child=%d\n", (int)child);
    ready(rank);
    sleep_ms(30000);
    return 0;
  }
  if (strcmp(mode, "sleep") == 0) {
    ready(rank);
    sleep_ms(arg1);
    return 0;
  }
  if (strcmp(mode, "print") == 0) {
    for (long i = 0; i < arg1; ++i) {
      printf("out %d line %ld\n", rank, i);
      fprintf(stderr, "err %d line %ld\n", rank, i);
    }
    printf("partial %d", rank);
    return 0;
  }
  fprintf(stderr, "rank_probe: unknown mode '%s'\n", mode);
  return 2;
}
