/* wildcard.c - MPI_ANY_SOURCE / MPI_ANY_TAG receives and message ordering.
 * Tests: rank 0 receives from all other ranks with ANY_SOURCE+ANY_TAG (various
 * tags and counts); status.MPI_SOURCE/MPI_TAG and MPI_Get_count are checked
 * against what the sender must have sent, results are printed sorted by
 * (source, tag). Non-overtaking: messages from one source arrive in send order
 * even with ANY_TAG; a burst of same-tag messages between a pair (blocking and
 * nonblocking) arrives in order. ANY_SOURCE with a specific tag skips
 * messages with other tags.
 * Intended NP: 4 (works for any NP >= 3).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define W MPI_COMM_WORLD
#define K 3
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static int msg_count(int src, int k) { return k + 1 + src; }
static int msg_tag(int src, int k) { return src * 10 + k; }
static int msg_val(int src, int k, int i) { return src * 1000 + k * 100 + i; }

typedef struct {
  int src, tag, count, ok;
} rec_t;
static int cmp_rec(const void* a, const void* b) {
  const rec_t *x = a, *y = b;
  if (x->src != y->src) return x->src - y->src;
  return x->tag - y->tag;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  int buf[64];
  MPI_Status st;

  /* 1. ANY_SOURCE + ANY_TAG at rank 0 */
  if (rank == 0) {
    int n = (size - 1) * K;
    rec_t* recs = malloc(sizeof(rec_t) * n);
    int* next_k = calloc(size, sizeof(int));
    int order_ok = 1;
    for (int m = 0; m < n; m++) {
      MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st);
      int cnt;
      MPI_Get_count(&st, MPI_INT, &cnt);
      int s = st.MPI_SOURCE, k = st.MPI_TAG - s * 10;
      int ok = s > 0 && s < size && k >= 0 && k < K && cnt == msg_count(s, k);
      for (int i = 0; ok && i < cnt; i++) ok = buf[i] == msg_val(s, k, i);
      if (s > 0 && s < size) {
        if (k != next_k[s]) order_ok = 0;
        next_k[s]++;
      }
      recs[m].src = s;
      recs[m].tag = st.MPI_TAG;
      recs[m].count = cnt;
      recs[m].ok = ok;
    }
    qsort(recs, n, sizeof(rec_t), cmp_rec);
    int all = 1;
    for (int m = 0; m < n; m++) {
      printf("rank 0 got from %d tag %d count %d data %s\n", recs[m].src, recs[m].tag,
             recs[m].count, recs[m].ok ? "ok" : "bad");
      int s = 1 + m / K, k = m % K;
      all = all && recs[m].ok && recs[m].src == s && recs[m].tag == msg_tag(s, k);
    }
    report("any_source any_tag receives", all);
    report("per-source order with any_tag", order_ok);
    free(recs);
    free(next_k);
  } else {
    for (int k = 0; k < K; k++) {
      for (int i = 0; i < msg_count(rank, k); i++) buf[i] = msg_val(rank, k, i);
      MPI_Send(buf, msg_count(rank, k), MPI_INT, 0, msg_tag(rank, k), W);
    }
  }
  MPI_Barrier(W);

  /* 2. specific source + ANY_TAG, and ANY_SOURCE + specific tag at the last rank */
  int last = size - 1;
  if (rank != last) {
    MPI_Request rq[2];
    int a = rank * 2 + 1, b = rank * 2 + 2;
    MPI_Isend(&a, 1, MPI_INT, last, 7, W, &rq[0]);
    MPI_Isend(&b, 1, MPI_INT, last, 8, W, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  } else {
    int got8[64], got7[64], ok = 1;
    for (int i = 0; i < last; i++) got8[i] = got7[i] = -1;
    for (int m = 0; m < last; m++) { /* tag 8 first although tag 7 was sent first */
      int v;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, W, &st);
      ok = ok && st.MPI_TAG == 8 && st.MPI_SOURCE >= 0 && st.MPI_SOURCE < last;
      if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < last) got8[st.MPI_SOURCE] = v;
    }
    for (int s = 0; s < last; s++) { /* then each source with ANY_TAG */
      int v;
      MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, W, &st);
      ok = ok && st.MPI_TAG == 7 && st.MPI_SOURCE == s;
      got7[s] = v;
    }
    for (int s = 0; s < last; s++) {
      printf("rank %d from %d tag7 %d tag8 %d\n", rank, s, got7[s], got8[s]);
      ok = ok && got7[s] == s * 2 + 1 && got8[s] == s * 2 + 2;
    }
    report("any_source specific tag / specific source any_tag", ok);
  }
  MPI_Barrier(W);

  /* 3. non-overtaking between a pair with the same tag (rank 1 -> rank 2) */
  const int B = 20;
  if (rank == 1) {
    for (int i = 0; i < B; i++) {
      int v = i * i;
      MPI_Send(&v, 1, MPI_INT, 2, 99, W);
    }
    MPI_Request rq[20];
    int vals[20];
    for (int i = 0; i < B; i++) {
      vals[i] = 5000 + i;
      MPI_Isend(&vals[i], 1, MPI_INT, 2, 98, W, &rq[i]);
    }
    MPI_Waitall(B, rq, MPI_STATUSES_IGNORE);
  } else if (rank == 2) {
    int ok = 1, v, vals[20];
    for (int i = 0; i < B; i++) {
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, W, &st);
      ok = ok && v == i * i && st.MPI_SOURCE == 1;
    }
    report("blocking same-tag order", ok);
    MPI_Request rq[20];
    for (int i = 0; i < B; i++) MPI_Irecv(&vals[i], 1, MPI_INT, 1, MPI_ANY_TAG, W, &rq[i]);
    MPI_Waitall(B, rq, MPI_STATUSES_IGNORE);
    ok = 1;
    for (int i = 0; i < B; i++) ok = ok && vals[i] == 5000 + i;
    printf("rank 2 nonblocking order first %d last %d\n", vals[0], vals[B - 1]);
    report("nonblocking same-tag order", ok);
  }
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
