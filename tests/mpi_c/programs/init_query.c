/* init_query.c - initialization and environment queries.
 * Tests: MPI_Initialized before (false) and after (true) initialization,
 * MPI_Init_thread requesting MPI_THREAD_SINGLE (provided >= MPI_THREAD_SINGLE,
 * printed only as a boolean), MPI_Finalized before (false) and after (true)
 * MPI_Finalize, MPI_Wtick > 0 and MPI_Wtime monotonic (booleans only),
 * MPI_Get_processor_name length > 0 (the name itself is never printed),
 * MPI_Comm_size/rank sanity. The only line printed after MPI_Finalize is the
 * MPI_Finalized result, followed by fflush.
 * Intended NP: 2 (works for any NP >= 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, fails = 0;
static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

int main(int argc, char** argv) {
  int init_before = -1, init_after = -1, fin_before = -1, fin_after = -1, provided = -1, size;
  MPI_Initialized(&init_before);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Initialized(&init_after);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  printf("rank %d initialized before init %d after init %d\n", rank, init_before != 0,
         init_after != 0);
  report("initialized", init_before == 0 && init_after != 0);
  printf("rank %d provided >= MPI_THREAD_SINGLE %d\n", rank, provided >= MPI_THREAD_SINGLE);
  report("init_thread provided", provided >= MPI_THREAD_SINGLE);
  report("rank within size", rank >= 0 && rank < size);

  double tick = MPI_Wtick();
  printf("rank %d wtick positive %d\n", rank, tick > 0.0);
  report("wtick", tick > 0.0);
  double t0 = MPI_Wtime(), prev = t0;
  int mono = 1;
  volatile double sink = 0.0;
  for (int i = 0; i < 1000; i++) {
    sink += i * 0.5;
    double t = MPI_Wtime();
    if (t < prev) mono = 0;
    prev = t;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  mono = mono && t1 >= prev && t1 >= t0;
  printf("rank %d wtime monotonic %d\n", rank, mono);
  report("wtime monotonic", mono);

  char name[MPI_MAX_PROCESSOR_NAME + 1];
  int len = -1;
  memset(name, 0, sizeof name);
  MPI_Get_processor_name(name, &len);
  int nameok = len > 0 && len <= MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len;
  printf("rank %d processor name length positive %d\n", rank, nameok);
  report("processor name", nameok);

  MPI_Finalized(&fin_before);
  printf("rank %d finalized before finalize %d\n", rank, fin_before != 0);
  report("finalized before", fin_before == 0);
  printf("rank %d %s\n", rank, fails ? "FAIL before finalize" : "OK all before finalize");
  fflush(stdout);
  MPI_Finalize();
  MPI_Finalized(&fin_after);
  MPI_Initialized(&init_after); /* still true after finalize */
  if (fin_after && init_after)
    printf("rank %d OK finalized after finalize 1 initialized 1\n", rank);
  else {
    printf("rank %d FAIL finalized after finalize %d initialized %d\n", rank, fin_after != 0,
           init_after != 0);
    fails++;
  }
  fflush(stdout);
  return fails ? 1 : 0;
}
