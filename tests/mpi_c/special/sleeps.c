/* Each rank sleeps 1,000 + rank seconds by sleep, a quarter second by usleep and another by
 * nanosleep between two MPI_Wtime calls, and prints how long that took in simulated time; the
 * run would take over 16 minutes of wall time if the sleeps were the host's. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double before = MPI_Wtime();
  const unsigned int left = sleep(1000 + (unsigned int)rank);
  const int u = usleep(250000);
  const struct timespec quarter = {0, 250000000};
  const int n = nanosleep(&quarter, NULL);
  const double after = MPI_Wtime();
  printf("rank %d slept %.6f s (returned %u %d %d)\n", rank, after - before, left, u, n);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
