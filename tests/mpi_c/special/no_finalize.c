/* Rank 0 returns from main after an MPI_Allreduce without calling MPI_Finalize. */
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, one = 1, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) return 0;
  MPI_Finalize();
  return 0;
}
