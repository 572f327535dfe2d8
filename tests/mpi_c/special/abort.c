/* Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) after a barrier; the others wait in a receive. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    printf("rank 1 aborts\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
