/* halo_globals.c - 1-D halo exchange plus per-rank global/static state.
 * Tests: a 1-D Jacobi-like stencil over a distributed double array with
 * MPI_Isend/MPI_Irecv/MPI_Waitall halo exchange (MPI_PROC_NULL at the ends)
 * for several iterations; final checksum via MPI_Allreduce compared with a
 * serial reference computed locally by every rank. Also uses GLOBAL variables,
 * a global array and a function-static counter that each rank increments in a
 * rank-dependent way; each rank must see only its own increments (proves the
 * runtime gives every rank private globals).
 * Intended NP: 4 (works for any NP >= 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NLOC 8
#define ITERS 5

int exchanges_done = 0;          /* global counter */
int touched[16];                 /* global array */
double global_scale = 1.0;       /* global initialised data */
static long long bytes_sent = 0; /* file-static */

static int helper_calls(int rank) {
  static int calls = 0; /* function-static counter */
  calls += 1 + rank;    /* rank-dependent increment */
  return calls;
}

static double init_val(int g) { return (double)((g * 37) % 11) + 0.25 * g; }

static void exchange(double* u, int rank, int size) {
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Request req[4];
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&u[NLOC + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&u[NLOC], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  exchanges_done++;
  if (left != MPI_PROC_NULL) bytes_sent += sizeof(double);
  if (right != MPI_PROC_NULL) bytes_sent += sizeof(double);
  touched[rank % 16] += 1;
  helper_calls(rank);
}

/* one stencil step on interior points 1..n, with fixed boundaries u[0], u[n+1] */
static void step(const double* u, double* un, int n) {
  for (int i = 1; i <= n; i++)
    un[i] = global_scale * (0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]);
}

int main(int argc, char** argv) {
  int rank, size, fails = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  global_scale = 1.0 + 0.0 * rank; /* every rank writes the same value */

  double u[NLOC + 2], un[NLOC + 2];
  for (int i = 1; i <= NLOC; i++) u[i] = init_val(rank * NLOC + i - 1);
  u[0] = u[NLOC + 1] = 0.0; /* physical boundary value 0 */

  for (int it = 0; it < ITERS; it++) {
    exchange(u, rank, size);
    if (rank == 0) u[0] = 0.0;
    if (rank == size - 1) u[NLOC + 1] = 0.0;
    step(u, un, NLOC);
    for (int i = 1; i <= NLOC; i++) u[i] = un[i];
  }
  double local = 0.0, wlocal = 0.0;
  for (int i = 1; i <= NLOC; i++) {
    local += u[i];
    wlocal += u[i] * (rank * NLOC + i);
  }
  double in[2] = {local, wlocal}, sum[2];
  MPI_Allreduce(in, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  /* serial reference */
  int N = NLOC * size;
  double *g = malloc(sizeof(double) * (N + 2)), *gn = malloc(sizeof(double) * (N + 2));
  g[0] = g[N + 1] = gn[0] = gn[N + 1] = 0.0;
  for (int i = 1; i <= N; i++) g[i] = init_val(i - 1);
  for (int it = 0; it < ITERS; it++) {
    step(g, gn, N);
    for (int i = 1; i <= N; i++) g[i] = gn[i];
  }
  double rsum = 0.0, rw = 0.0, mylocal_ref = 0.0;
  for (int i = 1; i <= N; i++) {
    rsum += g[i];
    rw += g[i] * i;
  }
  for (int i = 1; i <= NLOC; i++) mylocal_ref += g[rank * NLOC + i];
  free(g);
  free(gn);

  int ok = fabs(sum[0] - rsum) <= 1e-9 * fabs(rsum) && fabs(sum[1] - rw) <= 1e-9 * fabs(rw);
  printf("rank %d checksum %.6f weighted %.6f reference %.6f %.6f\n", rank, sum[0], sum[1], rsum,
         rw);
  if (ok)
    printf("rank %d OK checksum\n", rank);
  else {
    printf("rank %d FAIL checksum\n", rank);
    fails++;
  }
  ok = fabs(local - mylocal_ref) <= 1e-9 * (fabs(mylocal_ref) + 1.0);
  printf("rank %d local sum %.6f\n", rank, local);
  if (ok)
    printf("rank %d OK local sum\n", rank);
  else {
    printf("rank %d FAIL local sum\n", rank);
    fails++;
  }

  /* per-rank globals: everyone ran ITERS exchanges; helper increments by 1+rank */
  int calls = helper_calls(rank); /* one more call */
  long long exp_bytes = (long long)ITERS * sizeof(double) * ((rank > 0) + (rank < size - 1));
  int touched_sum = 0;
  for (int i = 0; i < 16; i++) touched_sum += touched[i];
  printf(
      "rank %d exchanges_done %d helper_calls %d bytes_sent %lld touched[%d] %d touched_sum %d\n",
      rank, exchanges_done, calls, bytes_sent, rank % 16, touched[rank % 16], touched_sum);
  ok = exchanges_done == ITERS && calls == (ITERS + 1) * (1 + rank) && bytes_sent == exp_bytes &&
       touched[rank % 16] == ITERS && touched_sum == ITERS;
  if (ok)
    printf("rank %d OK per-rank globals\n", rank);
  else {
    printf("rank %d FAIL per-rank globals\n", rank);
    fails++;
  }

  /* cross-check: sum of everyone's exchanges_done must be size*ITERS */
  int tot = 0;
  MPI_Allreduce(&exchanges_done, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d total exchanges %d\n", rank, tot);
  if (tot == size * ITERS)
    printf("rank %d OK total exchanges\n", rank);
  else {
    printf("rank %d FAIL total exchanges\n", rank);
    fails++;
  }

  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
