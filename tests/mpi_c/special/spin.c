/* Rank 1 computes forever without calling MPI again; the others wait in a barrier. */
#include <mpi.h>

int main(int argc, char** argv) {
  int rank;
  volatile unsigned long spins = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    for (;;) ++spins;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
