/*
 * Collectives called with counts that differ between the ranks (erroneous in MPI), with
 * errors returned: a rank that got more than its count takes fails with MPI_ERR_TRUNCATE, one
 * that got less with MPI_ERR_COUNT, and no rank is handed bytes nobody sent. A collective
 * with matching counts afterwards works. Meant for NP=2.
 */
#include <mpi.h>
#include <stdio.h>

static void Report(int rank, const char* what, int rc) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  printf("rank %d %s: %s\n", rank, what,
         cls == MPI_SUCCESS        ? "MPI_SUCCESS"
         : cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE"
         : cls == MPI_ERR_COUNT    ? "MPI_ERR_COUNT"
                                   : "another error");
}

int main(int argc, char** argv) {
  int rank, buf[16], out[16];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < 16; ++i) buf[i] = rank * 100 + i + 1;

  Report(rank, "bcast, the root's count larger",
         MPI_Bcast(buf, rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD));
  Report(rank, "bcast, the root's count smaller",
         MPI_Bcast(buf, rank == 0 ? 5 : 10, MPI_INT, 0, MPI_COMM_WORLD));

  /* Rank 0 takes 4 + 2 ints, rank 1 2 + 2: rank 0's reduction is short of 2 ints of rank 1's. */
  for (int i = 0; i < 16; ++i) out[i] = -1;
  const int counts[2] = {rank == 0 ? 4 : 2, 2};
  Report(rank, "reduce_scatter",
         MPI_Reduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int stray = 0;
  for (int i = 0; i < counts[rank]; ++i) stray += out[i] < -1 || out[i] > 400;
  printf("rank %d reduce_scatter values out of range: %d\n", rank, stray);

  Report(rank, "allreduce",
         MPI_Allreduce(buf, out, rank == 0 ? 3 : 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int one = rank + 1, sum = 0;
  Report(rank, "allreduce with matching counts",
         MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  printf("rank %d sum %d\n", rank, sum);
  MPI_Finalize();
  return 0;
}
