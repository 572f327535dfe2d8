/* Rank 0 sends to a rank that does not exist with the default MPI_ERRORS_ARE_FATAL. */
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, size, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
