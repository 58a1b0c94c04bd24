// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* tools/launch_probe.c over MPI: init, one allreduce, finalize. */
#include <mpi.h>

int main(int argc, char** argv) {
  int size = 0;
  float one = 1, sum = 0;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return sum == (float)size ? 0 : 1;
}
