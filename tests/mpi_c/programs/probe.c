/* probe.c - MPI_Probe / MPI_Iprobe then MPI_Get_count-sized receives.
 * Tests: every non-zero rank sends rank 0 messages of rank-dependent lengths on
 * tags 1 (int) and 2 (double); rank 0 uses MPI_Probe with ANY_SOURCE and a
 * specific tag, sizes a malloc'd buffer with MPI_Get_count, receives from the
 * probed source/tag, and checks contents. Then the same with MPI_Iprobe polled
 * until true (ANY_SOURCE + ANY_TAG, and specific source + specific tag).
 * Results are collected and printed sorted by source.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
static int ilen(int s) { return 3 * s + 1; }
static int dlen(int s) { return 100 * s; }
static int ival(int s, int i) { return s * 7 + i * 3; }
static double dval(int s, int i) { return s + i * 0.125; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  MPI_Status st;
  int phases = 2;

  for (int ph = 0; ph < phases; ph++) {
    if (rank != 0) {
      int* ib = malloc(sizeof(int) * ilen(rank));
      double* db = malloc(sizeof(double) * dlen(rank));
      for (int i = 0; i < ilen(rank); i++) ib[i] = ival(rank, i) + ph;
      for (int i = 0; i < dlen(rank); i++) db[i] = dval(rank, i) + ph;
      MPI_Request rq[2]; /* nonblocking: safe even if the tag-2 send needs rendezvous */
      MPI_Isend(db, dlen(rank), MPI_DOUBLE, 0, 2, W, &rq[0]); /* tag 2 first */
      MPI_Isend(ib, ilen(rank), MPI_INT, 0, 1, W, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      free(ib);
      free(db);
    } else {
      int *icnt = calloc(size, sizeof(int)), *dcnt = calloc(size, sizeof(int));
      int *iok = calloc(size, sizeof(int)), *dok = calloc(size, sizeof(int));
      int ok = 1;
      if (ph == 0) {
        /* blocking Probe: first all tag-1 messages, then all tag-2 messages */
        for (int tag = 1; tag <= 2; tag++)
          for (int m = 0; m < size - 1; m++) {
            MPI_Probe(MPI_ANY_SOURCE, tag, W, &st);
            int s = st.MPI_SOURCE, n;
            ok = ok && st.MPI_TAG == tag && s > 0 && s < size;
            if (!(s > 0 && s < size)) break;
            MPI_Get_count(&st, tag == 1 ? MPI_INT : MPI_DOUBLE, &n);
            void* b = malloc((size_t)(n ? n : 1) * (tag == 1 ? sizeof(int) : sizeof(double)));
            MPI_Recv(b, n, tag == 1 ? MPI_INT : MPI_DOUBLE, s, tag, W, &st);
            int c2;
            MPI_Get_count(&st, tag == 1 ? MPI_INT : MPI_DOUBLE, &c2);
            int good = c2 == n;
            for (int i = 0; i < n; i++)
              good = good && (tag == 1 ? ((int*)b)[i] == ival(s, i) + ph
                                       : ((double*)b)[i] == dval(s, i) + ph);
            if (tag == 1) {
              icnt[s] = n;
              iok[s] = good;
            } else {
              dcnt[s] = n;
              dok[s] = good;
            }
            free(b);
          }
      } else {
        /* Iprobe polled until true: ANY_SOURCE/ANY_TAG for the first message of each
           source in arrival order, then the specific (source, tag) pair remaining */
        int got = 0;
        while (got < 2 * (size - 1)) {
          int flag = 0;
          while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &flag, &st);
          int s = st.MPI_SOURCE, tag = st.MPI_TAG, n;
          ok = ok && s > 0 && s < size && (tag == 1 || tag == 2);
          if (!(s > 0 && s < size && (tag == 1 || tag == 2))) break;
          flag = 0;
          while (!flag) MPI_Iprobe(s, tag, W, &flag, &st); /* specific pair must also see it */
          MPI_Datatype dt = tag == 1 ? MPI_INT : MPI_DOUBLE;
          MPI_Get_count(&st, dt, &n);
          void* b = malloc((size_t)(n ? n : 1) * (tag == 1 ? sizeof(int) : sizeof(double)));
          MPI_Recv(b, n, dt, s, tag, W, MPI_STATUS_IGNORE);
          int good = 1;
          for (int i = 0; i < n; i++)
            good = good && (tag == 1 ? ((int*)b)[i] == ival(s, i) + ph
                                     : ((double*)b)[i] == dval(s, i) + ph);
          if (tag == 1) {
            icnt[s] = n;
            iok[s] = good;
          } else {
            dcnt[s] = n;
            dok[s] = good;
          }
          free(b);
          got++;
        }
      }
      for (int s = 1; s < size; s++) {
        printf("rank 0 phase %d from %d: int count %d %s, double count %d %s\n", ph, s, icnt[s],
               iok[s] ? "ok" : "bad", dcnt[s], dok[s] ? "ok" : "bad");
        ok = ok && icnt[s] == ilen(s) && dcnt[s] == dlen(s) && iok[s] && dok[s];
      }
      report(ph == 0 ? "probe any_source by tag" : "iprobe poll any_source any_tag", ok);
      free(icnt);
      free(dcnt);
      free(iok);
      free(dok);
    }
    MPI_Barrier(W);
  }
  /* Iprobe on an empty queue must return flag 0 (all messages consumed, barrier done) */
  int flag = 1;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &flag, MPI_STATUS_IGNORE);
  printf("rank %d iprobe on empty queue flag %d\n", rank, flag);
  report("iprobe empty", flag == 0);
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
