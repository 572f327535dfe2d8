/* SPDX-License-Identifier: Apache-2.0 */
/* gsm_errors: gsm's return codes on one node (rank 0 serves, ranks 1 and 2 are clients): a
 * bad config, calls out of order, a producer id taken, a closed handle, a silent consumer.
 * Usage: gsm_errors INTERVAL_US. Needs 3 ranks. Prints the same lines under any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "gsm.h"

static int fails;

static void expect(int rank, int got, int want, const char* what) {
  printf("rank %d %s %s: %s\n", rank, got == want ? "OK" : "FAIL", what, gsm_strerror(got));
  if (got != want) fails++;
}

static void sleep_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  int flag;
  while (MPI_Wtime() < until)
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double interval = (argc > 1 ? atof(argv[1]) : 200.0) * 1e-6;
  gsm_t* g;
  gsm_config bad = {1, 0.0, 8, 16, GSM_MODE_ALLGATHER, 3};
  expect(rank, gsm_init(MPI_COMM_WORLD, &bad, &g), GSM_ERR_ARG, "init with interval 0");
  gsm_config config = {1, interval, 8, 16, GSM_MODE_ALLGATHER, 3};
  if (gsm_init(MPI_COMM_WORLD, &config, &g) != GSM_OK || size != 3) MPI_Abort(MPI_COMM_WORLD, 2);
  char data[32] = "hello";
  int token = 0;
  if (gsm_is_service(g)) {
    gsm_service_run(g);
    gsm_stats st;
    gsm_stats_get(g, &st);
    printf(
        "rank 0 service: adds %llu, drops %llu, failures detected %llu, closed without drop %llu\n",
        (unsigned long long)st.adds, (unsigned long long)st.drops,
        (unsigned long long)st.failures_detected, (unsigned long long)st.closed_without_drop);
  } else if (rank == 1) {
    gsm_handle h;
    expect(rank, gsm_open(g, &h), GSM_OK, "open");
    expect(rank, gsm_put(g, h, data, 6, NULL), GSM_ERR_STATE, "put before add");
    expect(rank, gsm_add(g, h, -1), GSM_ERR_ARG, "add id -1");
    expect(rank, gsm_add(g, h, 8), GSM_ERR_ARG, "add id 8 of 8");
    expect(rank, gsm_add(g, h, 7), GSM_OK, "add id 7");
    expect(rank, gsm_add(g, h, 6), GSM_ERR_BUSY, "add a second id on one connection");
    expect(rank, gsm_put(g, h, data, 17, NULL), GSM_ERR_ARG, "put 17 bytes into 16-byte slots");
    uint64_t seq = 0;
    expect(rank, gsm_put(g, h, data, 6, &seq), GSM_OK, "put");
    printf("rank 1 first put seq %llu\n", (unsigned long long)seq);
    int n = 1;
    gsm_record rec;
    expect(rank, gsm_get(g, h, &rec, NULL, &n), GSM_ERR_STATE, "get without a context");
    MPI_Send(&token, 1, MPI_INT, 2, 1, MPI_COMM_WORLD); /* rank 2 tries id 7 now */
    MPI_Recv(&token, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(rank, gsm_drop(g, h), GSM_OK, "drop");
    expect(rank, gsm_drop(g, h), GSM_ERR_STATE, "drop twice");
    expect(rank, gsm_close(g, h), GSM_OK, "close");
    expect(rank, gsm_put(g, h, data, 6, NULL), GSM_ERR_EXPIRED, "put on a closed handle");
    MPI_Send(&token, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
  } else {
    gsm_handle p, c;
    expect(rank, gsm_open(g, &p), GSM_OK, "open");
    MPI_Recv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(rank, gsm_add(g, p, 7), GSM_ERR_BUSY, "add id 7 held by rank 1");
    MPI_Send(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(rank, gsm_add(g, p, 7), GSM_OK, "add id 7 after rank 1 dropped it");
    expect(rank, gsm_close(g, p), GSM_OK, "close still registered");
    expect(rank, gsm_open(g, &c), GSM_OK, "open a consumer");
    int ids[1] = {9}, n = 1;
    expect(rank, gsm_ioctl(g, c, GSM_IOCTL_REFRESH, ids, &n), GSM_ERR_STATE,
           "refresh before a context");
    expect(rank, gsm_ioctl(g, c, GSM_IOCTL_SET_CONTEXT, ids, &n), GSM_ERR_ARG,
           "context with id 9 of 8");
    ids[0] = 7;
    expect(rank, gsm_ioctl(g, c, GSM_IOCTL_SET_CONTEXT, ids, &n), GSM_OK, "context {7}");
    sleep_for(6 * interval); /* silent for more than 3 intervals: the service fails us */
    gsm_record rec;
    n = 1;
    expect(rank, gsm_get(g, c, &rec, NULL, &n), GSM_ERR_EXPIRED, "get after silence");
    expect(rank, gsm_open(g, &c), GSM_OK, "open again");
    expect(rank, gsm_ioctl(g, c, GSM_IOCTL_SET_CONTEXT, ids, &n), GSM_OK, "context {7} again");
    n = 1;
    expect(rank, gsm_get(g, c, &rec, NULL, &n), GSM_OK, "get");
    printf("rank 2 records of a dropped producer: %d\n", n);
    expect(rank, gsm_close(g, c), GSM_OK, "close");
  }
  gsm_finalize(g);
  if (fails) printf("rank %d FAIL %d checks\n", rank, fails);
  MPI_Finalize();
  return 0;
}
