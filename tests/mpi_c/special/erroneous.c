/*
 * Erroneous MPI programs, one per build of this file (the case is the end of the program's
 * name): a call before MPI_Init, MPI_Init twice, a call after MPI_Finalize, a NULL buffer
 * with a count, MPI_IN_PLACE to a send, a wait for a generalized request the program has
 * not completed (nothing else could complete it). Each must end the run with MPI's error,
 * never a crash or a hang. Meant for NP=2.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int Never(void* extra, MPI_Status* status) {
  (void)extra;
  (void)status;
  return MPI_SUCCESS;
}
static int NeverFreed(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int NeverCancelled(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

static int Is(const char* argv0, const char* name) {
  const size_t n = strlen(argv0), m = strlen(name);
  return n >= m && strcmp(argv0 + n - m, name) == 0;
}

int main(int argc, char** argv) {
  int rank = 0, x = 1;
  if (Is(argv[0], "_before")) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Init(&argc, &argv);
  if (Is(argv[0], "_twice")) MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (Is(argv[0], "_null") && rank == 0) MPI_Send(NULL, 10, MPI_INT, 1, 0, MPI_COMM_WORLD);
  if (Is(argv[0], "_in_place") && rank == 0) {
    MPI_Send(MPI_IN_PLACE, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  if (Is(argv[0], "_grequest") && rank == 1) {
    MPI_Request pending;
    MPI_Grequest_start(Never, NeverFreed, NeverCancelled, NULL, &pending);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
  }
  if ((Is(argv[0], "_null") || Is(argv[0], "_in_place")) && rank == 1) {
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  if (Is(argv[0], "_after")) MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d ended\n", rank);
  return 0;
}
