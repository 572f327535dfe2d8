/* ring.c - point-to-point ring tests.
 * Tests: a token passed around a ring with MPI_Send/MPI_Recv for several laps
 * (each hop modifies the token), MPI_Sendrecv and MPI_Sendrecv_replace cyclic
 * shifts, and MPI_PROC_NULL neighbours at the ends of a non-periodic line
 * (status source must be MPI_PROC_NULL, count 0).
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>

static int fails = 0;

static void check(int rank, int ok, const char* what) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  /* 1. token ring: 3 laps, each hop does token = token * 3 + rank + 1 (mod 1e9+7) */
  const int laps = 3;
  const long long MOD = 1000000007LL;
  long long token = 1;
  for (int lap = 0; lap < laps; lap++) {
    if (rank == 0) {
      token = (token * 3 + rank + 1) % MOD;
      MPI_Send(&token, 1, MPI_LONG_LONG, next, 10 + lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG_LONG, prev, 10 + lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG_LONG, prev, 10 + lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      /* serial reference of what we should have received */
      long long ref = 1;
      for (int l = 0; l <= lap; l++)
        for (int r = 0; r < size; r++) {
          if (l == lap && r == rank) break;
          ref = (ref * 3 + r + 1) % MOD;
        }
      printf("rank %d lap %d received token %lld\n", rank, lap, token);
      check(rank, token == ref, "ring token");
      token = (token * 3 + rank + 1) % MOD;
      MPI_Send(&token, 1, MPI_LONG_LONG, next, 10 + lap, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    long long ref = 1;
    for (int l = 0; l < laps; l++)
      for (int r = 0; r < size; r++) ref = (ref * 3 + r + 1) % MOD;
    printf("rank 0 final token %lld\n", token);
    check(rank, token == ref, "ring final token");
  }

  /* 2. Sendrecv shift right by one */
  int sbuf[3], rbuf[3];
  for (int i = 0; i < 3; i++) {
    sbuf[i] = rank * 100 + i;
    rbuf[i] = -1;
  }
  MPI_Status st;
  MPI_Sendrecv(sbuf, 3, MPI_INT, next, 20, rbuf, 3, MPI_INT, prev, 20, MPI_COMM_WORLD, &st);
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  int ok = (st.MPI_SOURCE == prev && st.MPI_TAG == 20 && cnt == 3);
  for (int i = 0; i < 3; i++) ok = ok && rbuf[i] == prev * 100 + i;
  printf("rank %d sendrecv got %d %d %d count %d\n", rank, rbuf[0], rbuf[1], rbuf[2], cnt);
  check(rank, ok, "sendrecv shift");

  /* 3. Sendrecv_replace shift left by one, twice: data ends up from rank+2 */
  double d[2] = {rank + 0.5, rank * 2.25};
  for (int k = 0; k < 2; k++)
    MPI_Sendrecv_replace(d, 2, MPI_DOUBLE, prev, 30 + k, next, 30 + k, MPI_COMM_WORLD, &st);
  int src = (rank + 2) % size;
  printf("rank %d sendrecv_replace got %.3f %.3f\n", rank, d[0], d[1]);
  check(rank, d[0] == src + 0.5 && d[1] == src * 2.25 && st.MPI_SOURCE == next && st.MPI_TAG == 31,
        "sendrecv_replace shift");

  /* 4. non-periodic line with MPI_PROC_NULL at the ends */
  int lnext = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  int lprev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int val = rank * 7 + 1, got = -12345;
  MPI_Sendrecv(&val, 1, MPI_INT, lnext, 40, &got, 1, MPI_INT, lprev, 40, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  if (lprev == MPI_PROC_NULL) {
    printf("rank %d line: prev is PROC_NULL, source_is_proc_null=%d count=%d untouched=%d\n", rank,
           st.MPI_SOURCE == MPI_PROC_NULL, cnt, got == -12345);
    check(rank,
          st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && got == -12345,
          "proc_null recv status");
  } else {
    printf("rank %d line: got %d from %d\n", rank, got, st.MPI_SOURCE);
    check(rank, got == lprev * 7 + 1 && st.MPI_SOURCE == lprev && cnt == 1, "line shift");
  }
  /* plain Send/Recv to PROC_NULL complete immediately */
  MPI_Send(&val, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD);
  MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  check(rank, st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0, "send/recv proc_null");

  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
