/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The suite's MTest_Finalize as upstream MPICH has it, which finalizes MPI: this copy's leaves
 * MPI_Finalize to the program, and some of its programs rely on upstream's. Most of them call
 * MPI_Finalize themselves all the same, some after more MPI calls, so MPI is finalized at the
 * process's exit if the program has not done it by then. Linked with
 * -Wl,--wrap=MTest_Finalize.
 */
#include <mpi.h>
#include <stdlib.h>

void __real_MTest_Finalize(int errors);

static void FinalizeIfNeeded(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void __wrap_MTest_Finalize(int errors) {
  __real_MTest_Finalize(errors);
  atexit(FinalizeIfNeeded);
}
