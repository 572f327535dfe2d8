/* collectives.c - every collective of the supported subset, against serial references.
 * Tests: Barrier, Bcast, Reduce, Allreduce, Gather, Gatherv, Scatter, Scatterv,
 * Allgather, Allgatherv, Alltoall, Alltoallv, Reduce_scatter, Reduce_scatter_block,
 * Scan, Exscan; for MPI_INT and MPI_DOUBLE, several roots and counts (including
 * count 0), uneven counts and non-contiguous displacements (gaps must stay
 * untouched) for the v-variants. Double values are small dyadic rationals so
 * all sums are exact regardless of reduction order. Exscan's rank-0 result is
 * undefined and is neither checked nor printed.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, fails = 0;
#define W MPI_COMM_WORLD
#define MAXN 256

static int iv(int r, int i) { return r * 100 + i + 1; }
static double dv(int r, int i) { return r * 0.5 + i * 0.25 + 1.0; }

static void ci(const char* what, const int* got, const int* ref, int n) {
  int ok = 1;
  printf("rank %d %s:", rank, what);
  for (int i = 0; i < n; i++) {
    printf(" %d", got[i]);
    if (got[i] != ref[i]) ok = 0;
  }
  printf("\n");
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static void cd(const char* what, const double* got, const double* ref, int n) {
  int ok = 1;
  printf("rank %d %s:", rank, what);
  for (int i = 0; i < n; i++) {
    printf(" %.4f", got[i]);
    if (got[i] != ref[i]) ok = 0;
  }
  printf("\n");
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static void fill_i(int* a, int n, int v) {
  for (int i = 0; i < n; i++) a[i] = v;
}
static void fill_d(double* a, int n, double v) {
  for (int i = 0; i < n; i++) a[i] = v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  static int si[MAXN], ri[MAXN], xi[MAXN];
  static double sd[MAXN], rd[MAXN], xd[MAXN];
  int cnts[64], dsp[64], rcnts[64], rdsp[64];
  char name[96];
  int roots[3] = {0, size - 1, 1 % size};

  MPI_Barrier(W);
  /* Bcast: several roots and counts, including 0 */
  int bcounts[3] = {0, 1, 5};
  for (int k = 0; k < 3; k++) {
    int root = roots[k], n = bcounts[k];
    fill_i(ri, 6, -1);
    fill_d(rd, 6, -1.0);
    fill_i(xi, 6, -1);
    fill_d(xd, 6, -1.0);
    for (int i = 0; i < n; i++) {
      xi[i] = iv(root, i);
      xd[i] = dv(root, i);
    }
    if (rank == root) {
      memcpy(ri, xi, sizeof(int) * n);
      memcpy(rd, xd, sizeof(double) * n);
    }
    MPI_Bcast(ri, n, MPI_INT, root, W);
    MPI_Bcast(rd, n, MPI_DOUBLE, root, W);
    sprintf(name, "bcast int root %d count %d", root, n);
    ci(name, ri, xi, 6);
    sprintf(name, "bcast double root %d count %d", root, n);
    cd(name, rd, xd, 6);
  }
  /* Reduce (SUM int, MAX double) and Allreduce (SUM, PROD, MIN; count 0) */
  for (int k = 0; k < 3; k++) {
    int root = roots[k], n = 3 + k;
    for (int i = 0; i < n; i++) {
      si[i] = iv(rank, i);
      sd[i] = dv((rank * 3) % size, i);
    }
    fill_i(ri, n, -1);
    fill_d(rd, n, -1.0);
    MPI_Reduce(si, ri, n, MPI_INT, MPI_SUM, root, W);
    MPI_Reduce(sd, rd, n, MPI_DOUBLE, MPI_MAX, root, W);
    if (rank == root) {
      for (int i = 0; i < n; i++) {
        xi[i] = 0;
        xd[i] = -1e300;
        for (int r = 0; r < size; r++) {
          xi[i] += iv(r, i);
          if (dv((r * 3) % size, i) > xd[i]) xd[i] = dv((r * 3) % size, i);
        }
      }
      sprintf(name, "reduce sum int root %d", root);
      ci(name, ri, xi, n);
      sprintf(name, "reduce max double root %d", root);
      cd(name, rd, xd, n);
    }
  }
  for (int i = 0; i < 4; i++) {
    si[i] = iv(rank, i) % 7 + 1;
    sd[i] = (rank + i) % 3 == 0 ? 2.0 : 1.0;
  }
  MPI_Allreduce(si, ri, 4, MPI_INT, MPI_SUM, W);
  MPI_Allreduce(sd, rd, 4, MPI_DOUBLE, MPI_PROD, W);
  for (int i = 0; i < 4; i++) {
    xi[i] = 0;
    xd[i] = 1.0;
    for (int r = 0; r < size; r++) {
      xi[i] += iv(r, i) % 7 + 1;
      xd[i] *= (r + i) % 3 == 0 ? 2.0 : 1.0;
    }
  }
  ci("allreduce sum int", ri, xi, 4);
  cd("allreduce prod double", rd, xd, 4);
  MPI_Allreduce(si, ri, 4, MPI_INT, MPI_MIN, W);
  for (int i = 0; i < 4; i++) {
    xi[i] = 1 << 30;
    for (int r = 0; r < size; r++)
      if (iv(r, i) % 7 + 1 < xi[i]) xi[i] = iv(r, i) % 7 + 1;
  }
  ci("allreduce min int", ri, xi, 4);
  ri[0] = -5;
  xi[0] = -5;
  MPI_Allreduce(si, ri, 0, MPI_INT, MPI_SUM, W);
  ci("allreduce count 0 untouched", ri, xi, 1);

  /* Gather / Scatter with several roots */
  for (int k = 0; k < 3; k++) {
    int root = roots[k];
    for (int i = 0; i < 2; i++) {
      si[i] = iv(rank, i);
      sd[i] = dv(rank, i);
    }
    fill_i(ri, 2 * size, -1);
    fill_d(rd, 2 * size, -1.0);
    MPI_Gather(si, 2, MPI_INT, ri, 2, MPI_INT, root, W);
    MPI_Gather(sd, 1, MPI_DOUBLE, rd, 1, MPI_DOUBLE, root, W);
    if (rank == root) {
      for (int r = 0; r < size; r++) {
        xi[2 * r] = iv(r, 0);
        xi[2 * r + 1] = iv(r, 1);
        xd[r] = dv(r, 0);
      }
      sprintf(name, "gather int root %d", root);
      ci(name, ri, xi, 2 * size);
      sprintf(name, "gather double root %d", root);
      cd(name, rd, xd, size);
    }
    for (int i = 0; i < 3 * size; i++) {
      si[i] = iv(root, i);
      sd[i] = dv(root, i);
    }
    fill_i(ri, 3, -1);
    fill_d(rd, 3, -1.0);
    MPI_Scatter(si, 3, MPI_INT, ri, 3, MPI_INT, root, W);
    MPI_Scatter(sd, 2, MPI_DOUBLE, rd, 2, MPI_DOUBLE, root, W);
    for (int i = 0; i < 3; i++) {
      xi[i] = iv(root, 3 * rank + i);
      xd[i] = i < 2 ? dv(root, 2 * rank + i) : -1.0;
    }
    sprintf(name, "scatter int root %d", root);
    ci(name, ri, xi, 3);
    sprintf(name, "scatter double root %d", root);
    cd(name, rd, xd, 3);
  }
  /* Gatherv / Scatterv: rank r has r+1 items; displacements reversed with gaps of 2 */
  int tot = 0;
  for (int r = size - 1; r >= 0; r--) {
    cnts[r] = r + 1;
    dsp[r] = tot;
    tot += cnts[r] + 2;
  }
  for (int k = 0; k < 2; k++) {
    int root = roots[k];
    for (int i = 0; i < rank + 1; i++) si[i] = iv(rank, i);
    fill_i(ri, tot, -1);
    fill_i(xi, tot, -1);
    MPI_Gatherv(si, rank + 1, MPI_INT, ri, cnts, dsp, MPI_INT, root, W);
    if (rank == root) {
      for (int r = 0; r < size; r++)
        for (int i = 0; i < cnts[r]; i++) xi[dsp[r] + i] = iv(r, i);
      sprintf(name, "gatherv int root %d", root);
      ci(name, ri, xi, tot);
    }
    fill_d(sd, tot, -7.0);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < cnts[r]; i++) sd[dsp[r] + i] = dv(r + root, i);
    fill_d(rd, size + 1, -1.0);
    fill_d(xd, size + 1, -1.0);
    MPI_Scatterv(sd, cnts, dsp, MPI_DOUBLE, rd, rank + 1, MPI_DOUBLE, root, W);
    for (int i = 0; i < rank + 1; i++) xd[i] = dv(rank + root, i);
    sprintf(name, "scatterv double root %d", root);
    cd(name, rd, xd, size + 1);
  }
  /* Allgather and Allgatherv (rank r contributes r%3 items: rank 0 sends 0) */
  for (int i = 0; i < 3; i++) {
    si[i] = iv(rank, i);
    sd[i] = dv(rank, i);
  }
  MPI_Allgather(si, 3, MPI_INT, ri, 3, MPI_INT, W);
  MPI_Allgather(sd, 1, MPI_DOUBLE, rd, 1, MPI_DOUBLE, W);
  for (int r = 0; r < size; r++) {
    for (int i = 0; i < 3; i++) xi[3 * r + i] = iv(r, i);
    xd[r] = dv(r, 0);
  }
  ci("allgather int", ri, xi, 3 * size);
  cd("allgather double", rd, xd, size);
  tot = 1;
  for (int r = 0; r < size; r++) {
    cnts[r] = r % 3;
    dsp[r] = tot;
    tot += cnts[r] + 1;
  }
  fill_d(rd, tot, -1.0);
  fill_d(xd, tot, -1.0);
  MPI_Allgatherv(sd, rank % 3, MPI_DOUBLE, rd, cnts, dsp, MPI_DOUBLE, W);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < cnts[r]; i++) xd[dsp[r] + i] = dv(r, i);
  cd("allgatherv double", rd, xd, tot);
  /* Alltoall */
  for (int j = 0; j < size; j++) {
    si[2 * j] = iv(rank, 10 * j);
    si[2 * j + 1] = iv(rank, 10 * j + 1);
    sd[j] = dv(rank, j);
  }
  MPI_Alltoall(si, 2, MPI_INT, ri, 2, MPI_INT, W);
  MPI_Alltoall(sd, 1, MPI_DOUBLE, rd, 1, MPI_DOUBLE, W);
  for (int r = 0; r < size; r++) {
    xi[2 * r] = iv(r, 10 * rank);
    xi[2 * r + 1] = iv(r, 10 * rank + 1);
    xd[r] = dv(r, rank);
  }
  ci("alltoall int", ri, xi, 2 * size);
  cd("alltoall double", rd, xd, size);
  /* Alltoallv: rank i sends (i+j)%3 items to j; gaps of 1 on both sides */
  int stot = 0, rtot = 0;
  for (int j = 0; j < size; j++) {
    cnts[j] = (rank + j) % 3;
    dsp[j] = stot;
    stot += cnts[j] + 1;
    rcnts[j] = (j + rank) % 3;
    rdsp[j] = rtot + 1;
    rtot += rcnts[j] + 1;
  }
  rtot++;
  fill_i(si, stot, -9);
  for (int j = 0; j < size; j++)
    for (int i = 0; i < cnts[j]; i++) si[dsp[j] + i] = iv(rank, 10 * j + i);
  fill_i(ri, rtot, -1);
  fill_i(xi, rtot, -1);
  MPI_Alltoallv(si, cnts, dsp, MPI_INT, ri, rcnts, rdsp, MPI_INT, W);
  for (int j = 0; j < size; j++)
    for (int i = 0; i < rcnts[j]; i++) xi[rdsp[j] + i] = iv(j, 10 * rank + i);
  ci("alltoallv int", ri, xi, rtot);
  /* Reduce_scatter (rank r gets r+1 items) and Reduce_scatter_block (2 items each) */
  tot = 0;
  for (int r = 0; r < size; r++) {
    cnts[r] = r + 1;
    tot += r + 1;
  }
  for (int i = 0; i < tot + 2 * size; i++) {
    si[i] = iv(rank, i);
    sd[i] = dv(rank, i);
  }
  MPI_Reduce_scatter(si, ri, cnts, MPI_INT, MPI_SUM, W);
  int off = rank * (rank + 1) / 2;
  for (int i = 0; i < rank + 1; i++) {
    xi[i] = 0;
    for (int r = 0; r < size; r++) xi[i] += iv(r, off + i);
  }
  ci("reduce_scatter sum int", ri, xi, rank + 1);
  MPI_Reduce_scatter_block(sd, rd, 2, MPI_DOUBLE, MPI_SUM, W);
  for (int i = 0; i < 2; i++) {
    xd[i] = 0;
    for (int r = 0; r < size; r++) xd[i] += dv(r, 2 * rank + i);
  }
  cd("reduce_scatter_block sum double", rd, xd, 2);
  /* Scan / Exscan */
  for (int i = 0; i < 3; i++) {
    si[i] = iv(rank, i);
    sd[i] = dv((rank * 5) % size, i);
  }
  MPI_Scan(si, ri, 3, MPI_INT, MPI_SUM, W);
  MPI_Scan(sd, rd, 3, MPI_DOUBLE, MPI_MAX, W);
  for (int i = 0; i < 3; i++) {
    xi[i] = 0;
    xd[i] = -1e300;
    for (int r = 0; r <= rank; r++) {
      xi[i] += iv(r, i);
      if (dv((r * 5) % size, i) > xd[i]) xd[i] = dv((r * 5) % size, i);
    }
  }
  ci("scan sum int", ri, xi, 3);
  cd("scan max double", rd, xd, 3);
  MPI_Exscan(si, ri, 3, MPI_INT, MPI_SUM, W);
  MPI_Exscan(sd, rd, 3, MPI_DOUBLE, MPI_SUM, W);
  if (rank > 0) {
    for (int i = 0; i < 3; i++) {
      xi[i] = 0;
      xd[i] = 0;
      for (int r = 0; r < rank; r++) {
        xi[i] += iv(r, i);
        xd[i] += dv((r * 5) % size, i);
      }
    }
    ci("exscan sum int", ri, xi, 3);
    cd("exscan sum double", rd, xd, 3);
  }
  MPI_Barrier(W);
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
