/* Computes between two MPI_Wtime calls: prints whether simulated time passed meanwhile. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  volatile double x = 1.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double before = MPI_Wtime();
  for (long i = 0; i < 20000000; ++i) x = x * 1.0000001 + 1e-9;
  const double after = MPI_Wtime();
  printf("rank %d computing took simulated time: %s\n", rank, after > before ? "yes" : "no");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
