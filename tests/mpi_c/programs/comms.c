/* comms.c - communicator management.
 * Tests: MPI_Comm_dup, MPI_Comm_split by parity with a key that reverses the
 * order, color MPI_UNDEFINED giving MPI_COMM_NULL, MPI_Comm_compare (IDENT for
 * the same handle, CONGRUENT for a dup and for an order-preserving split of
 * everyone, SIMILAR for an order-reversing split of everyone, UNEQUAL for a
 * subset), collectives and point-to-point on sub-communicators, isolation of
 * a dup (a message on the dup never matches a receive on the original, even
 * with ANY_SOURCE/ANY_TAG), and MPI_Comm_free setting the handle to MPI_COMM_NULL.
 * Intended NP: 4 (works for any NP >= 3).
 */
#include <mpi.h>
#include <stdio.h>

#define W MPI_COMM_WORLD
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static const char* cmp_name(int c) {
  return c == MPI_IDENT       ? "IDENT"
         : c == MPI_CONGRUENT ? "CONGRUENT"
         : c == MPI_SIMILAR   ? "SIMILAR"
         : c == MPI_UNEQUAL   ? "UNEQUAL"
                              : "other";
}
static void cmp(const char* what, MPI_Comm a, MPI_Comm b, int want) {
  int c = -1;
  MPI_Comm_compare(a, b, &c);
  printf("rank %d compare %s: %s\n", rank, what, cmp_name(c));
  report(what, c == want);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);

  MPI_Comm dup, par, sub, same, rev;
  MPI_Comm_dup(W, &dup);
  cmp("world vs world", W, W, MPI_IDENT);
  cmp("world vs dup", W, dup, MPI_CONGRUENT);
  cmp("dup vs dup", dup, dup, MPI_IDENT);
  int dr, ds;
  MPI_Comm_rank(dup, &dr);
  MPI_Comm_size(dup, &ds);
  report("dup rank/size", dr == rank && ds == size);

  /* split by parity, key reverses the order */
  MPI_Comm_split(W, rank % 2, size - rank, &par);
  int pr, ps;
  MPI_Comm_rank(par, &pr);
  MPI_Comm_size(par, &ps);
  int xps = 0, xpr = 0;
  for (int r = 0; r < size; r++)
    if (r % 2 == rank % 2) {
      xps++;
      if (r > rank) xpr++;
    }
  printf("rank %d parity %d sub rank %d size %d\n", rank, rank % 2, pr, ps);
  report("split parity rank/size", pr == xpr && ps == xps);
  cmp("world vs parity split", W, par, MPI_UNEQUAL);

  /* collectives on the parity comm */
  int v = rank * rank + 1, s = 0, xs = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, par);
  for (int r = 0; r < size; r++)
    if (r % 2 == rank % 2) xs += r * r + 1;
  printf("rank %d parity allreduce %d\n", rank, s);
  report("parity allreduce", s == xs);
  int b = pr == 0 ? 1000 + rank : -1;
  MPI_Bcast(&b, 1, MPI_INT, 0, par);
  int top = -1;
  for (int r = 0; r < size; r++)
    if (r % 2 == rank % 2) top = r; /* highest world rank is sub rank 0 */
  printf("rank %d parity bcast from sub rank 0: %d\n", rank, b);
  report("parity bcast", b == 1000 + top);
  int g[64];
  MPI_Allgather(&rank, 1, MPI_INT, g, 1, MPI_INT, par);
  int ok = 1;
  printf("rank %d parity allgather:", rank);
  for (int i = 0; i < ps; i++) {
    printf(" %d", g[i]);
    ok = ok && g[i] == top - 2 * i;
  }
  printf("\n");
  report("parity allgather order", ok);
  /* point-to-point ring on the parity comm */
  int nx = (pr + 1) % ps, pv = (pr + ps - 1) % ps, got = -1;
  MPI_Status st;
  MPI_Sendrecv(&rank, 1, MPI_INT, nx, 11, &got, 1, MPI_INT, pv, 11, par, &st);
  int xgot = top - 2 * pv;
  printf("rank %d parity ring got world rank %d from sub rank %d\n", rank, got, st.MPI_SOURCE);
  report("parity ring", got == xgot && st.MPI_SOURCE == pv);

  /* MPI_UNDEFINED color: rank 0 gets MPI_COMM_NULL */
  MPI_Comm_split(W, rank == 0 ? MPI_UNDEFINED : 3, rank, &sub);
  if (rank == 0) {
    printf("rank %d undefined color gives COMM_NULL %d\n", rank, sub == MPI_COMM_NULL);
    report("undefined color", sub == MPI_COMM_NULL);
  } else {
    int sr, ss;
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_size(sub, &ss);
    printf("rank %d sub rank %d size %d\n", rank, sr, ss);
    report("subset split", sr == rank - 1 && ss == size - 1);
    cmp("world vs subset", W, sub, MPI_UNEQUAL);
    int m = 0;
    MPI_Allreduce(&rank, &m, 1, MPI_INT, MPI_MIN, sub);
    report("subset allreduce min", m == 1);
  }

  /* same group, same order -> CONGRUENT; reversed order -> SIMILAR */
  MPI_Comm_split(W, 0, rank, &same);
  MPI_Comm_split(W, 0, -rank, &rev);
  cmp("world vs split same order", W, same, MPI_CONGRUENT);
  cmp("world vs split reversed", W, rev, MPI_SIMILAR);
  int rr;
  MPI_Comm_rank(rev, &rr);
  report("reversed rank", rr == size - 1 - rank);

  /* isolation: rank 0 sends on dup first, then on world; rank 1 receives world first */
  if (rank == 0) {
    MPI_Request rq[2];
    int a = 111, c = 222;
    MPI_Isend(&a, 1, MPI_INT, 1, 5, dup, &rq[0]);
    MPI_Isend(&c, 1, MPI_INT, 1, 5, W, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  } else if (rank == 1) {
    int x = -1, y = -1;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, MPI_STATUS_IGNORE);
    MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
    printf("rank %d world got %d dup got %d\n", rank, x, y);
    report("dup isolation", x == 222 && y == 111);
  }
  /* collectives on dup and world interleaved */
  int d1 = rank + 1, d2 = 0;
  MPI_Allreduce(&d1, &d2, 1, MPI_INT, MPI_PROD, dup);
  int xprod = 1;
  for (int r = 0; r < size; r++) xprod *= r + 1;
  report("dup allreduce", d2 == xprod);

  /* dup of a split communicator */
  MPI_Comm pdup;
  MPI_Comm_dup(par, &pdup);
  cmp("parity vs its dup", par, pdup, MPI_CONGRUENT);

  MPI_Comm_free(&pdup);
  MPI_Comm_free(&par);
  MPI_Comm_free(&same);
  MPI_Comm_free(&rev);
  if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  MPI_Comm_free(&dup);
  report("comm_free gives COMM_NULL", dup == MPI_COMM_NULL && par == MPI_COMM_NULL &&
                                          pdup == MPI_COMM_NULL && same == MPI_COMM_NULL &&
                                          rev == MPI_COMM_NULL && sub == MPI_COMM_NULL);
  MPI_Barrier(W);
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
