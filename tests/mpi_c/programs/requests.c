/*
 * Requests beyond the plain nonblocking send and receive: persistent requests started many
 * times (their datatype freed after they were made), buffered sends with an attached buffer,
 * a receive cancelled before anything matched it,
 * nonblocking collectives, a nonblocking duplicate, and the split of the world by shared
 * memory. Meant for NP=4.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails = 0;

static void Expect(int rank, const char* what, long got, long want) {
  printf("rank %d %s %ld\n", rank, what, got);
  if (got != want) {
    printf("rank %d FAIL %s: want %ld\n", rank, what, want);
    ++fails;
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Persistent requests around the ring, started three times; the pair type is freed first. */
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int out[2], in[2];
  MPI_Request reqs[2];
  MPI_Send_init(out, 1, pair, right, 1, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(in, 1, pair, left, 1, MPI_COMM_WORLD, &reqs[1]);
  MPI_Type_free(&pair);
  long total = 0;
  for (int round = 0; round < 3; ++round) {
    out[0] = rank;
    out[1] = round;
    MPI_Startall(2, reqs);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    total += in[0] * 10 + in[1];
  }
  Expect(rank, "persistent ring total", total, 30L * left + 3);
  Expect(rank, "persistent request survives", reqs[0] != MPI_REQUEST_NULL, 1);
  MPI_Status idle;
  MPI_Wait(&reqs[1], &idle); /* an inactive request completes at once */
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);

  /* Buffered sends: two that fit the attached buffer go, and detaching waits for them. */
  int block[100], got[100];
  for (int i = 0; i < 100; ++i) block[i] = rank * 1000 + i;
  void* detached;
  int detached_size;
  int bsize = 2 * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* buffer = malloc((size_t)bsize);
  MPI_Buffer_attach(buffer, bsize);
  MPI_Bsend(block, 100, MPI_INT, right, 2, MPI_COMM_WORLD);
  MPI_Request ib;
  MPI_Ibsend(block, 100, MPI_INT, right, 2, MPI_COMM_WORLD, &ib);
  MPI_Wait(&ib, MPI_STATUS_IGNORE);
  for (int k = 0; k < 2; ++k) {
    MPI_Recv(got, 100, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Expect(rank, "buffered message's last int", got[99], left * 1000 + 99);
  }
  MPI_Buffer_detach(&detached, &detached_size);
  Expect(rank, "detached the same buffer", detached == buffer && detached_size == bsize, 1);
  free(buffer);

  /* A receive nothing will match, cancelled. */
  MPI_Request never;
  MPI_Status st;
  int cancelled = 0, x = 0;
  MPI_Irecv(&x, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &never);
  MPI_Cancel(&never);
  MPI_Wait(&never, &st);
  MPI_Test_cancelled(&st, &cancelled);
  Expect(rank, "receive cancelled", cancelled, 1);

  /* Nonblocking collectives and a nonblocking duplicate. */
  MPI_Request coll[2];
  int sum = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &coll[0]);
  MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &coll[1]);
  MPI_Waitall(2, coll, MPI_STATUSES_IGNORE);
  Expect(rank, "iallreduce sum", sum, size * (size - 1) / 2);
  MPI_Comm copy;
  MPI_Request dup_req;
  MPI_Comm_idup(MPI_COMM_WORLD, &copy, &dup_req);
  MPI_Wait(&dup_req, MPI_STATUS_IGNORE);
  int copy_size = 0;
  MPI_Comm_size(copy, &copy_size);
  Expect(rank, "idup size", copy_size, size);
  MPI_Comm_free(&copy);

  /* Ranks of one node share memory: each node's ranks form a communicator. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0, everyone = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Allreduce(&node_size, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  Expect(rank, "every node has a rank", everyone >= 1, 1);
  MPI_Comm_free(&node);

  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK");
  MPI_Finalize();
  return 0;
}
