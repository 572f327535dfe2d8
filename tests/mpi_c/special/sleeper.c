/* Rank 1 blocks on the host for a long time before its next MPI call (poll with no
 * descriptors: the library simulates sleep, usleep and nanosleep, not this); the others wait in
 * a barrier. */
#include <mpi.h>
#include <poll.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) poll(NULL, 0, 600000);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
