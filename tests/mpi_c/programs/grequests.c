/*
 * Generalized requests: operations of the program's own behind MPI requests. A pending one
 * tests as incomplete (alone and beside others), completes through its query and free
 * callbacks once the program completes it, waits beside a message, is freed before it
 * completes, and is cancelled through its cancel callback. Meant for NP=2.
 */
#include <mpi.h>
#include <stdio.h>

static int fails = 0;

static void Expect(int rank, const char* what, long got, long want) {
  printf("rank %d %s %ld\n", rank, what, got);
  if (got != want) {
    printf("rank %d FAIL %s: want %ld\n", rank, what, want);
    ++fails;
  }
}

/* What the callbacks are given: the status to report, and counts of their calls. */
struct Op {
  int source, tag, ints, cancelled;
  int queries, frees, cancels, last_cancel_complete;
};

static int Query(void* extra, MPI_Status* status) {
  struct Op* op = extra;
  ++op->queries;
  status->MPI_SOURCE = op->source;
  status->MPI_TAG = op->tag;
  MPI_Status_set_elements(status, MPI_INT, op->ints);
  MPI_Status_set_cancelled(status, op->cancelled);
  return MPI_SUCCESS;
}

static int Free(void* extra) {
  ++((struct Op*)extra)->frees;
  return MPI_SUCCESS;
}

static int Cancel(void* extra, int complete) {
  struct Op* op = extra;
  ++op->cancels;
  op->last_cancel_complete = complete;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = (rank + 1) % size;

  /* Pending: every test says incomplete, and nothing is called. */
  struct Op a = {7, 42, 5, 0, 0, 0, 0, 0};
  MPI_Request r[2];
  MPI_Grequest_start(Query, Free, Cancel, &a, &r[0]);
  r[1] = MPI_REQUEST_NULL;
  int flag = -1, index = -1;
  MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
  Expect(rank, "test of a pending request", flag, 0);
  MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  Expect(rank, "testall with it pending", flag, 0);
  MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
  Expect(rank, "testany with it pending", flag, 0);
  Expect(rank, "callbacks before it completes", a.queries + a.frees + a.cancels, 0);

  /* Completed by the program: the wait reports what the query callback says, then frees. */
  MPI_Grequest_complete(r[0]);
  MPI_Status st;
  int count = -1, cancelled = -1;
  MPI_Wait(&r[0], &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MPI_Test_cancelled(&st, &cancelled);
  Expect(rank, "status source", st.MPI_SOURCE, 7);
  Expect(rank, "status tag", st.MPI_TAG, 42);
  Expect(rank, "status count", count, 5);
  Expect(rank, "status cancelled", cancelled, 0);
  Expect(rank, "queries and frees", a.queries * 10 + a.frees, 11);
  Expect(rank, "request freed", r[0] == MPI_REQUEST_NULL, 1);

  /* Beside a message: waitany takes the message while the request is pending, then waitall
   * takes both once it is complete. */
  struct Op b = {3, 9, 2, 1, 0, 0, 0, 0};
  int in = -1, out = rank * 100;
  MPI_Request m[2];
  MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m[0]);
  MPI_Grequest_start(Query, Free, Cancel, &b, &m[1]);
  MPI_Send(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  MPI_Waitany(2, m, &index, &st);
  Expect(rank, "waitany took the message", index, 0);
  Expect(rank, "message", in, ((rank + size - 1) % size) * 100);
  MPI_Cancel(&m[1]);
  Expect(rank, "cancel callback, pending", b.cancels * 10 + b.last_cancel_complete, 10);
  MPI_Grequest_complete(m[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, m, sts);
  MPI_Test_cancelled(&sts[1], &cancelled);
  Expect(rank, "waitall status tag", sts[1].MPI_TAG, 9);
  Expect(rank, "waitall status cancelled", cancelled, 1);
  Expect(rank, "queries and frees", b.queries * 10 + b.frees, 11);

  /* Freed before it completes: the free callback runs when the program completes it. */
  struct Op c = {0, 0, 0, 0, 0, 0, 0, 0};
  MPI_Request g, kept;
  MPI_Grequest_start(Query, Free, Cancel, &c, &g);
  kept = g;
  MPI_Request_free(&g);
  Expect(rank, "handle gone", g == MPI_REQUEST_NULL, 1);
  Expect(rank, "frees before completion", c.frees, 0);
  MPI_Grequest_complete(kept);
  Expect(rank, "frees after completion", c.frees, 1);
  Expect(rank, "queries of a freed request", c.queries, 0);

  /* Cancelled once complete, then tested. */
  struct Op d = {1, 2, 0, 0, 0, 0, 0, 0};
  MPI_Grequest_start(Query, Free, Cancel, &d, &g);
  MPI_Grequest_complete(g);
  MPI_Cancel(&g);
  Expect(rank, "cancel callback, complete", d.cancels * 10 + d.last_cancel_complete, 11);
  flag = 0;
  MPI_Test(&g, &flag, &st);
  Expect(rank, "test once complete", flag, 1);
  Expect(rank, "queries and frees", d.queries * 10 + d.frees, 11);

  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK");
  MPI_Finalize();
  return 0;
}
