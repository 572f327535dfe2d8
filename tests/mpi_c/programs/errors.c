/* errors.c - error classes returned with MPI_ERRORS_RETURN.
 * Tests: after MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
 * erroneous calls that are rejected locally by argument checking:
 * Send/Recv/Isend to rank == size (MPI_ERR_RANK), negative tag (MPI_ERR_TAG),
 * negative count (MPI_ERR_COUNT), MPI_COMM_NULL (MPI_ERR_COMM), Bcast/Reduce
 * with root out of range (MPI_ERR_ROOT; only clearly invalid values, never a
 * value that could be a special constant like MPI_PROC_NULL), MPI_DATATYPE_NULL (MPI_ERR_TYPE),
 * Allreduce with MPI_OP_NULL (MPI_ERR_OP); and a truncated receive
 * (MPI_ERR_TRUNCATE). For each case the class from MPI_Error_class is
 * compared to the named constant and whether MPI_Error_string gave a
 * non-empty string is printed (never the text). Communication still works
 * after the errors.
 * Intended NP: 4 (needs an even NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
static int rank, size, fails = 0;

static const char* class_name(int c) {
  if (c == MPI_SUCCESS) return "MPI_SUCCESS";
  if (c == MPI_ERR_RANK) return "MPI_ERR_RANK";
  if (c == MPI_ERR_TAG) return "MPI_ERR_TAG";
  if (c == MPI_ERR_COUNT) return "MPI_ERR_COUNT";
  if (c == MPI_ERR_COMM) return "MPI_ERR_COMM";
  if (c == MPI_ERR_TYPE) return "MPI_ERR_TYPE";
  if (c == MPI_ERR_ROOT) return "MPI_ERR_ROOT";
  if (c == MPI_ERR_OP) return "MPI_ERR_OP";
  if (c == MPI_ERR_ARG) return "MPI_ERR_ARG";
  if (c == MPI_ERR_TRUNCATE) return "MPI_ERR_TRUNCATE";
  return "other";
}

static void expect(const char* what, int rc, int want) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  char s[MPI_MAX_ERROR_STRING + 1];
  int len = 0;
  s[0] = '\0';
  MPI_Error_string(rc, s, &len);
  int nonempty = len > 0 && strlen(s) > 0;
  if (want == MPI_SUCCESS)
    printf("rank %d %s: %s\n", rank, what, class_name(cls));
  else
    printf("rank %d %s: %s string_nonempty %d\n", rank, what, class_name(cls), nonempty);
  if (cls == want && (want == MPI_SUCCESS || nonempty))
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  int rc = MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  expect("set_errhandler", rc, MPI_SUCCESS);
  int buf[16] = {0}, out[16];
  MPI_Request req;
  int peer = rank ^ 1;

  rc = MPI_Send(buf, 1, MPI_INT, size, 0, W);
  expect("rank error (send to rank size)", rc, MPI_ERR_RANK);
  rc = MPI_Send(buf, 1, MPI_INT, -7, 0, W);
  expect("rank error (send to rank -7)", rc, MPI_ERR_RANK);
  rc = MPI_Recv(buf, 1, MPI_INT, size + 3, 0, W, MPI_STATUS_IGNORE);
  expect("rank error (recv from rank size+3)", rc, MPI_ERR_RANK);
  rc = MPI_Isend(buf, 1, MPI_INT, size, 0, W, &req);
  expect("rank error (isend to rank size)", rc, MPI_ERR_RANK);
  rc = MPI_Send(buf, 1, MPI_INT, peer, -5, W);
  expect("tag error (negative tag on send)", rc, MPI_ERR_TAG);
  rc = MPI_Send(buf, -1, MPI_INT, peer, 0, W);
  expect("count error (negative count on send)", rc, MPI_ERR_COUNT);
  rc = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
  expect("comm error (send on MPI_COMM_NULL)", rc, MPI_ERR_COMM);
  rc = MPI_Barrier(MPI_COMM_NULL);
  expect("comm error (barrier on MPI_COMM_NULL)", rc, MPI_ERR_COMM);
  rc = MPI_Bcast(buf, 1, MPI_INT, size, W);
  expect("root error (bcast root size)", rc, MPI_ERR_ROOT);
  rc = MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, size + 5, W);
  expect("root error (reduce root size+5)", rc, MPI_ERR_ROOT);
  rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0, W);
  expect("type error (send MPI_DATATYPE_NULL)", rc, MPI_ERR_TYPE);
  rc = MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, W);
  expect("op error (allreduce MPI_OP_NULL)", rc, MPI_ERR_OP);

  /* truncation: even rank sends 10 ints, odd rank posts a receive for 4 */
  if (rank % 2 == 0) {
    for (int i = 0; i < 10; i++) buf[i] = rank * 10 + i;
    rc = MPI_Send(buf, 10, MPI_INT, peer, 3, W);
    expect("send of message that will be truncated", rc, MPI_SUCCESS);
  } else {
    for (int i = 0; i < 16; i++) out[i] = -1;
    rc = MPI_Recv(out, 4, MPI_INT, peer, 3, W, MPI_STATUS_IGNORE);
    expect("truncate error (recv buffer too small)", rc, MPI_ERR_TRUNCATE);
    printf("rank %d beyond receive buffer untouched %d\n", rank, out[4] == -1);
  }

  /* communication still works afterwards */
  int v = rank * 3 + 1, sum = 0;
  rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, W);
  expect("allreduce after errors", rc, MPI_SUCCESS);
  int ref = 0;
  for (int r = 0; r < size; r++) ref += r * 3 + 1;
  printf("rank %d allreduce sum %d\n", rank, sum);
  if (sum == ref)
    printf("rank %d OK sum after errors\n", rank);
  else {
    printf("rank %d FAIL sum after errors\n", rank);
    fails++;
  }
  int got = -1;
  rc = MPI_Sendrecv(&v, 1, MPI_INT, peer, 4, &got, 1, MPI_INT, peer, 4, W, MPI_STATUS_IGNORE);
  expect("sendrecv after errors", rc, MPI_SUCCESS);
  if (got == peer * 3 + 1)
    printf("rank %d OK sendrecv value\n", rank);
  else {
    printf("rank %d FAIL sendrecv value\n", rank);
    fails++;
  }

  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
