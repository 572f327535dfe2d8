/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The suite's MTest_Finalize as upstream MPICH has it, which ends with MPI_Finalize: this copy's
 * leaves MPI_Finalize to the program, and some of its programs rely on upstream's. Most of them
 * call MPI_Finalize after MTest_Finalize all the same, so the program's own MPI_Finalize is
 * wrapped too and does nothing once MPI is finalized. Linked with -Wl,--wrap=MTest_Finalize
 * -Wl,--wrap=MPI_Finalize (only the program's and the helper library's calls are wrapped).
 */
#include <mpi.h>

void __real_MTest_Finalize(int errors);
int __real_MPI_Finalize(void);

int __wrap_MPI_Finalize(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized ? MPI_SUCCESS : __real_MPI_Finalize();
}

void __wrap_MTest_Finalize(int errors) {
  __real_MTest_Finalize(errors);
  __wrap_MPI_Finalize();
}
