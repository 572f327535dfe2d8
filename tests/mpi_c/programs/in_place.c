/* in_place.c - MPI_IN_PLACE variants of collectives.
 * Tests: MPI_IN_PLACE with Allreduce, Reduce (at root), Gather (at root),
 * Gatherv (at root), Scatter (at root), Allgather, Allgatherv, Alltoall, Scan,
 * Reduce_scatter_block; results checked against serial references.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>

#define W MPI_COMM_WORLD
#define MAXN 256
static int rank, size, fails = 0;

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
static int v(int r, int i) { return r * 100 + i + 1; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  int b[MAXN], x[MAXN], s[MAXN], cnts[64], dsp[64];
  int root = size - 1;

  /* Allreduce in place (SUM) */
  for (int i = 0; i < 3; i++) b[i] = v(rank, i);
  MPI_Allreduce(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM, W);
  for (int i = 0; i < 3; i++) {
    x[i] = 0;
    for (int r = 0; r < size; r++) x[i] += v(r, i);
  }
  ci("allreduce in_place sum", b, x, 3);
  /* Allreduce in place (MAX) */
  for (int i = 0; i < 3; i++) b[i] = (rank * 7 + i * 3) % 5;
  MPI_Allreduce(MPI_IN_PLACE, b, 3, MPI_INT, MPI_MAX, W);
  for (int i = 0; i < 3; i++) {
    x[i] = -1;
    for (int r = 0; r < size; r++)
      if ((r * 7 + i * 3) % 5 > x[i]) x[i] = (r * 7 + i * 3) % 5;
  }
  ci("allreduce in_place max", b, x, 3);

  /* Reduce in place at root */
  for (int i = 0; i < 3; i++) b[i] = v(rank, i);
  if (rank == root)
    MPI_Reduce(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM, root, W);
  else
    MPI_Reduce(b, NULL, 3, MPI_INT, MPI_SUM, root, W);
  if (rank == root) {
    for (int i = 0; i < 3; i++) {
      x[i] = 0;
      for (int r = 0; r < size; r++) x[i] += v(r, i);
    }
    ci("reduce in_place at root", b, x, 3);
  }

  /* Gather in place at root: root's block already sits in recvbuf */
  for (int i = 0; i < 2 * size; i++) b[i] = -1;
  if (rank == root) {
    b[2 * root] = v(root, 0);
    b[2 * root + 1] = v(root, 1);
    MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, b, 2, MPI_INT, root, W);
    for (int r = 0; r < size; r++) {
      x[2 * r] = v(r, 0);
      x[2 * r + 1] = v(r, 1);
    }
    ci("gather in_place at root", b, x, 2 * size);
  } else {
    s[0] = v(rank, 0);
    s[1] = v(rank, 1);
    MPI_Gather(s, 2, MPI_INT, NULL, 0, MPI_INT, root, W);
  }

  /* Gatherv in place at root 0: rank r has r+1 items, displacements with gaps */
  int tot = 0;
  for (int r = 0; r < size; r++) {
    cnts[r] = r + 1;
    dsp[r] = tot + 1;
    tot += r + 2;
  }
  tot++;
  for (int i = 0; i < tot; i++) b[i] = x[i] = -1;
  for (int i = 0; i < rank + 1; i++) s[i] = v(rank, i);
  if (rank == 0) {
    b[dsp[0]] = v(0, 0);
    MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, b, cnts, dsp, MPI_INT, 0, W);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < cnts[r]; i++) x[dsp[r] + i] = v(r, i);
    ci("gatherv in_place at root", b, x, tot);
  } else {
    MPI_Gatherv(s, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, W);
  }

  /* Scatter in place at root: root keeps its block in sendbuf */
  if (rank == root) {
    for (int i = 0; i < 3 * size; i++) b[i] = v(root, i);
    MPI_Scatter(b, 3, MPI_INT, MPI_IN_PLACE, 3, MPI_INT, root, W);
    for (int i = 0; i < 3 * size; i++) x[i] = v(root, i);
    ci("scatter in_place at root (sendbuf unchanged)", b, x, 3 * size);
  } else {
    for (int i = 0; i < 3; i++) s[i] = -1;
    MPI_Scatter(NULL, 0, MPI_INT, s, 3, MPI_INT, root, W);
    for (int i = 0; i < 3; i++) x[i] = v(root, 3 * rank + i);
    ci("scatter recv (root used in_place)", s, x, 3);
  }

  /* Allgather in place */
  for (int i = 0; i < 2 * size; i++) b[i] = -1;
  b[2 * rank] = v(rank, 0);
  b[2 * rank + 1] = v(rank, 1);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, W);
  for (int r = 0; r < size; r++) {
    x[2 * r] = v(r, 0);
    x[2 * r + 1] = v(r, 1);
  }
  ci("allgather in_place", b, x, 2 * size);

  /* Allgatherv in place: rank r has (r%2)+1 items, reversed displacement order */
  tot = 0;
  for (int r = size - 1; r >= 0; r--) {
    cnts[r] = r % 2 + 1;
    dsp[r] = tot;
    tot += cnts[r] + 1;
  }
  for (int i = 0; i < tot; i++) b[i] = x[i] = -1;
  for (int i = 0; i < cnts[rank]; i++) b[dsp[rank] + i] = v(rank, i);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnts, dsp, MPI_INT, W);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < cnts[r]; i++) x[dsp[r] + i] = v(r, i);
  ci("allgatherv in_place", b, x, tot);

  /* Alltoall in place: block j goes to rank j */
  for (int j = 0; j < size; j++) {
    b[2 * j] = v(rank, 10 * j);
    b[2 * j + 1] = v(rank, 10 * j + 1);
  }
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, W);
  for (int r = 0; r < size; r++) {
    x[2 * r] = v(r, 10 * rank);
    x[2 * r + 1] = v(r, 10 * rank + 1);
  }
  ci("alltoall in_place", b, x, 2 * size);

  /* Scan in place */
  for (int i = 0; i < 2; i++) b[i] = v(rank, i);
  MPI_Scan(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, W);
  for (int i = 0; i < 2; i++) {
    x[i] = 0;
    for (int r = 0; r <= rank; r++) x[i] += v(r, i);
  }
  ci("scan in_place", b, x, 2);

  /* Reduce_scatter_block in place: input is the full recvbuf, result in first block */
  for (int i = 0; i < 2 * size; i++) b[i] = v(rank, i);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, W);
  for (int i = 0; i < 2; i++) {
    x[i] = 0;
    for (int r = 0; r < size; r++) x[i] += v(r, 2 * rank + i);
  }
  ci("reduce_scatter_block in_place", b, x, 2);

  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
