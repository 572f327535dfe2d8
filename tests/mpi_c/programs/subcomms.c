/*
 * Communicators made by only some ranks, then one made by all: ranks 0 and 2 share a
 * communicator that they duplicate twice more, ranks 1 and 3 do not, and then every rank
 * duplicates MPI_COMM_WORLD and exchanges messages on the copy (an MPI whose ranks count
 * contexts apart would send them on contexts that do not match). Also splits of a split.
 * Meant for NP=4.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, fails = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half, extra1, extra2, world2, quarter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  if (rank % 2 == 0) {
    MPI_Comm_dup(half, &extra1);
    MPI_Comm_dup(extra1, &extra2);
    int x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, extra2);
    printf("rank %d even-half sum %d\n", rank, sum);
    if (sum != 2) ++fails;
    MPI_Comm_free(&extra2);
    MPI_Comm_free(&extra1);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &world2);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, right, 4, &got, 1, MPI_INT, left, 4, world2, MPI_STATUS_IGNORE);
  printf("rank %d got %d from its left on the world copy\n", rank, got);
  if (got != left) ++fails;
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  MPI_Comm_split(half, 0, -hrank, &quarter);
  int qrank, total = 0;
  MPI_Comm_rank(quarter, &qrank);
  MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, quarter);
  printf("rank %d half rank %d of %d, reversed rank %d, half total %d\n", rank, hrank, hsize, qrank,
         total);
  if (qrank != hsize - 1 - hrank) ++fails;
  MPI_Comm_free(&quarter);
  MPI_Comm_free(&world2);
  MPI_Comm_free(&half);
  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
