/* nonblocking.c - nonblocking point-to-point and completion calls.
 * Tests: Isend/Irecv completed with Waitany (indices collected and printed
 * sorted), Waitsome, a Test polling loop, Testall, Testany, Waitany on an
 * all-null request array (MPI_UNDEFINED), MPI_Request_free on an active send,
 * Ssend, Issend, Rsend (only after a Barrier guarantees the matching receive
 * is posted), MPI_STATUSES_IGNORE. Every rank exchanges with every other rank.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define W MPI_COMM_WORLD
#define MAXP 64
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static int icmp(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }
static int val(int from, int to, int phase) { return from * 1000 + to * 10 + phase; }

/* post receives from all others and sends to all others for one phase */
static int post_all(int phase, int* rbuf, int* sbuf, MPI_Request* rr, MPI_Request* sr) {
  int n = 0;
  for (int p = 0; p < size; p++) {
    if (p == rank) continue;
    MPI_Irecv(&rbuf[n], 1, MPI_INT, p, phase, W, &rr[n]);
    sbuf[n] = val(rank, p, phase);
    MPI_Isend(&sbuf[n], 1, MPI_INT, p, phase, W, &sr[n]);
    n++;
  }
  return n;
}
static int peer_of(int idx) { return idx < rank ? idx : idx + 1; }
static void print_sorted(const char* what, int* idx, int n, const int* rbuf, int phase) {
  qsort(idx, n, sizeof(int), icmp);
  int ok = 1;
  printf("rank %d %s indices:", rank, what);
  for (int i = 0; i < n; i++) {
    printf(" %d", idx[i]);
    ok = ok && idx[i] == i && rbuf[i] == val(peer_of(i), rank, phase);
  }
  printf("\n");
  report(what, ok);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  int rbuf[MAXP], sbuf[MAXP], idx[MAXP], n, flag;
  MPI_Request rr[MAXP], sr[MAXP];
  MPI_Status st, sts[MAXP];

  /* Waitany */
  n = post_all(1, rbuf, sbuf, rr, sr);
  int srcok = 1;
  for (int k = 0; k < n; k++) {
    MPI_Waitany(n, rr, &idx[k], &st);
    srcok = srcok && st.MPI_SOURCE == peer_of(idx[k]) && st.MPI_TAG == 1 &&
            rr[idx[k]] == MPI_REQUEST_NULL;
  }
  report("waitany status source/tag", srcok);
  print_sorted("waitany", idx, n, rbuf, 1);
  int any = 12345;
  MPI_Waitany(n, rr, &any, &st);
  printf("rank %d waitany on null requests gives undefined %d\n", rank, any == MPI_UNDEFINED);
  report("waitany all null", any == MPI_UNDEFINED);
  MPI_Waitall(n, sr, MPI_STATUSES_IGNORE);

  /* Waitsome */
  n = post_all(2, rbuf, sbuf, rr, sr);
  int done = 0, outc, outi[MAXP];
  while (done < n) {
    MPI_Waitsome(n, rr, &outc, outi, sts);
    for (int i = 0; i < outc; i++) idx[done++] = outi[i];
  }
  print_sorted("waitsome", idx, n, rbuf, 2);
  MPI_Waitsome(n, rr, &outc, outi, sts);
  report("waitsome all null gives undefined", outc == MPI_UNDEFINED);
  MPI_Waitall(n, sr, MPI_STATUSES_IGNORE);

  /* Test loop on each receive */
  n = post_all(3, rbuf, sbuf, rr, sr);
  for (int i = 0; i < n; i++) {
    flag = 0;
    while (!flag) MPI_Test(&rr[i], &flag, &st);
    idx[i] = i;
    srcok = srcok && st.MPI_SOURCE == peer_of(i) && rr[i] == MPI_REQUEST_NULL;
  }
  report("test loop status", srcok);
  print_sorted("test loop", idx, n, rbuf, 3);
  MPI_Waitall(n, sr, MPI_STATUSES_IGNORE);

  /* Testall */
  n = post_all(4, rbuf, sbuf, rr, sr);
  flag = 0;
  while (!flag) MPI_Testall(n, rr, &flag, sts);
  int ok = 1;
  for (int i = 0; i < n; i++) {
    idx[i] = i;
    ok = ok && sts[i].MPI_SOURCE == peer_of(i) && sts[i].MPI_TAG == 4;
  }
  report("testall statuses", ok);
  print_sorted("testall", idx, n, rbuf, 4);
  flag = 0;
  while (!flag) MPI_Testall(n, sr, &flag, MPI_STATUSES_IGNORE);

  /* Testany */
  n = post_all(5, rbuf, sbuf, rr, sr);
  done = 0;
  while (done < n) {
    int i = -1;
    MPI_Testany(n, rr, &i, &flag, &st);
    if (flag && i != MPI_UNDEFINED) idx[done++] = i;
  }
  print_sorted("testany", idx, n, rbuf, 5);
  int ti = 0;
  MPI_Testany(n, rr, &ti, &flag, &st);
  report("testany all null: flag true, index undefined", flag && ti == MPI_UNDEFINED);
  MPI_Waitall(n, sr, MPI_STATUSES_IGNORE);

  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  /* Request_free on an active send; the receive proves delivery */
  static int freed_buf[4];
  for (int i = 0; i < 4; i++) freed_buf[i] = rank * 4 + i;
  MPI_Request fr;
  MPI_Isend(freed_buf, 4, MPI_INT, next, 6, W, &fr);
  MPI_Request_free(&fr);
  int fb[4] = {-1, -1, -1, -1};
  MPI_Recv(fb, 4, MPI_INT, prev, 6, W, MPI_STATUS_IGNORE);
  printf("rank %d request_free send delivered %d %d %d %d\n", rank, fb[0], fb[1], fb[2], fb[3]);
  report("request_free send", fr == MPI_REQUEST_NULL && fb[0] == prev * 4 && fb[3] == prev * 4 + 3);
  MPI_Barrier(W); /* the freed send must have completed: its receive completed everywhere */

  /* Ssend and Issend (even/odd ordering avoids deadlock for Ssend) */
  int sv = val(rank, next, 7), rv = -1;
  if (rank % 2 == 0) {
    MPI_Ssend(&sv, 1, MPI_INT, next, 7, W);
    MPI_Recv(&rv, 1, MPI_INT, prev, 7, W, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&rv, 1, MPI_INT, prev, 7, W, MPI_STATUS_IGNORE);
    MPI_Ssend(&sv, 1, MPI_INT, next, 7, W);
  }
  report("ssend ring", rv == val(prev, rank, 7));
  MPI_Request q[2];
  sv = val(rank, next, 8);
  MPI_Issend(&sv, 1, MPI_INT, next, 8, W, &q[0]);
  MPI_Irecv(&rv, 1, MPI_INT, prev, 8, W, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  report("issend ring", rv == val(prev, rank, 8));

  /* Rsend: receive posted before the Barrier, Rsend after it */
  rv = -1;
  MPI_Irecv(&rv, 1, MPI_INT, prev, 9, W, &q[0]);
  MPI_Barrier(W);
  sv = val(rank, next, 9);
  MPI_Rsend(&sv, 1, MPI_INT, next, 9, W);
  MPI_Wait(&q[0], &st);
  printf("rank %d rsend got %d from %d\n", rank, rv, st.MPI_SOURCE);
  report("rsend ring", rv == val(prev, rank, 9) && st.MPI_SOURCE == prev);

  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
