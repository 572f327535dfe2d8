/*
 * The neighbourhood collectives on each kind of topology: a line of 4 that is not periodic
 * (the ends have MPI_PROC_NULL neighbours, whose slots stay as they were), a periodic 2 x 2
 * grid (each neighbour is so twice, once in each direction, and the blocks must land in the
 * right slot), a graph with a doubled edge, and an asymmetric distributed graph. Also a
 * derived datatype per block, byte displacements (alltoallw), and a wildcard receive of the
 * program's own pending on the communicator meanwhile (no collective message may match it).
 * Meant for NP=4.
 */
#include <mpi.h>
#include <stdio.h>

#define EMPTY (-99)

static int fails = 0;

static void expect(int ok, int rank, const char* what) {
  if (!ok) {
    printf("rank %d FAIL %s\n", rank, what);
    ++fails;
  }
}

static void print(int rank, const char* what, const int* v, int n) {
  int i;
  printf("rank %d %s:", rank, what);
  for (i = 0; i < n; ++i) printf(" %d", v[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  int rank, size, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* A line: 0 - 1 - 2 - 3. */
  MPI_Comm line;
  int periods[2] = {0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, periods, 0, &line);
  int pending = EMPTY;
  MPI_Request user;
  MPI_Irecv(&pending, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, line, &user);

  int one = 100 + rank, two[2] = {EMPTY, EMPTY};
  MPI_Neighbor_allgather(&one, 1, MPI_INT, two, 1, MPI_INT, line);
  print(rank, "line allgather", two, 2);

  int counts[2] = {1, 1}, reversed[2] = {1, 0};
  two[0] = two[1] = EMPTY;
  MPI_Neighbor_allgatherv(&one, 1, MPI_INT, two, counts, reversed, MPI_INT, line);
  print(rank, "line allgatherv reversed", two, 2);

  int out[2] = {-(rank + 1), rank + 1};
  two[0] = two[1] = EMPTY;
  MPI_Neighbor_alltoall(out, 1, MPI_INT, two, 1, MPI_INT, line);
  print(rank, "line alltoall", two, 2);

  int straight[2] = {0, 1};
  two[0] = two[1] = EMPTY;
  MPI_Neighbor_alltoallv(out, counts, straight, MPI_INT, two, counts, reversed, MPI_INT, line);
  print(rank, "line alltoallv reversed", two, 2);

  MPI_Aint sbytes[2] = {0, sizeof(int)}, rbytes[2] = {sizeof(int), 0};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  two[0] = two[1] = EMPTY;
  MPI_Neighbor_alltoallw(out, counts, sbytes, types, two, counts, rbytes, types, line);
  print(rank, "line alltoallw reversed", two, 2);

  /* The program's own message, after all that: the wildcard receive gets it, not theirs. */
  int mine = 1000 + rank;
  MPI_Send(&mine, 1, MPI_INT, (rank + 1) % size, 7, line);
  MPI_Status status;
  MPI_Wait(&user, &status);
  expect(pending == 1000 + (rank + size - 1) % size && status.MPI_TAG == 7, rank,
         "the wildcard receive got a collective's message");
  MPI_Comm_free(&line);

  /* 2 x 2, periodic: the one neighbour in a dimension is both the negative and the positive.
   * Each process sends 10 rank + slot, as a column of a 2-row matrix (a vector type). */
  MPI_Comm grid;
  int dims[2] = {2, 2}, wrap[2] = {1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, wrap, 0, &grid);
  int matrix[2][4], four[4];
  for (i = 0; i < 4; ++i) {
    matrix[0][i] = 10 * rank + i;
    matrix[1][i] = -1;
  }
  MPI_Datatype column;
  MPI_Type_vector(2, 1, 4, MPI_INT, &column);
  MPI_Datatype column_resized;
  MPI_Type_create_resized(column, 0, sizeof(int), &column_resized);
  MPI_Type_commit(&column_resized);
  int pairs[8];
  MPI_Neighbor_alltoall(matrix, 1, column_resized, pairs, 2, MPI_INT, grid);
  for (i = 0; i < 4; ++i) four[i] = pairs[2 * i];
  print(rank, "grid alltoall", four, 4);
  expect(pairs[1] == -1 && pairs[7] == -1, rank, "column second rows");
  MPI_Type_free(&column_resized);
  MPI_Type_free(&column);
  MPI_Neighbor_allgather(&rank, 1, MPI_INT, four, 1, MPI_INT, grid);
  print(rank, "grid allgather", four, 4);
  MPI_Comm_free(&grid);

  /* A ring graph where 0 and 1 are linked twice. */
  int index[4], edges[10], k = 0;
  for (i = 0; i < size; ++i) {
    edges[k++] = (i + size - 1) % size;
    edges[k++] = (i + 1) % size;
    if (i == 0) edges[k++] = 1;
    if (i == 1) edges[k++] = 0;
    index[i] = k;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  int sends[3], got[3] = {EMPTY, EMPTY, EMPTY}, n;
  MPI_Graph_neighbors_count(graph, rank, &n);
  for (i = 0; i < n; ++i) sends[i] = 100 * rank + i;
  MPI_Neighbor_alltoall(sends, 1, MPI_INT, got, 1, MPI_INT, graph);
  print(rank, "graph alltoall", got, n);
  MPI_Comm_free(&graph);

  /* Each process sends to the next two and hears from the previous two. */
  int from[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
  int to[2] = {(rank + 1) % size, (rank + 2) % size};
  MPI_Comm dist;
  int weights[2] = {1, 1};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, from, weights, 2, to, weights, MPI_INFO_NULL, 0,
                                 &dist);
  int vcounts[2] = {1, 2}, vdispls[2] = {2, 0}, varied[3] = {EMPTY, EMPTY, EMPTY};
  int data[3] = {rank, 10 + rank, 20 + rank}, scounts[2], sdispls[2] = {0, 1};
  /* What goes to the next process is 1 item, to the one after that 2 (its second source). */
  scounts[0] = 1;
  scounts[1] = 2;
  MPI_Neighbor_alltoallv(data, scounts, sdispls, MPI_INT, varied, vcounts, vdispls, MPI_INT, dist);
  print(rank, "dist alltoallv", varied, 3);
  MPI_Comm_free(&dist);

  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
