/* Rank 1 sleeps for a long time before its next MPI call; the others wait in a barrier. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) sleep(600);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
