/*
 * Rank 0 sends a message rank 1 never receives, and both finalize: the program is erroneous
 * (a message sent for nothing), and the run must not pass. Meant for NP=2.
 */
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, x = 7;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
