/*
 * Process topologies and their queries: MPI_Dims_create's balanced grids (which MPI defines),
 * a 3 x 2 Cartesian grid periodic in its first dimension (coordinates, shifts, ranks with
 * wrap-around, subgrids), a grid on only some of the processes, a graph and distributed
 * graphs (their neighbours and weights), MPI_Topo_test, a duplicate keeping its topology,
 * the maps (whose choice MPI leaves open: only checked), and the error classes MPI names.
 * Meant for NP=6.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails = 0;

static void expect(int ok, int rank, const char* what) {
  if (!ok) {
    printf("rank %d FAIL %s\n", rank, what);
    ++fails;
  }
}

static int error_class(int code) {
  int cls = MPI_SUCCESS;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &cls);
  return cls;
}

static int by_rank(const void* a, const void* b) {
  const int* x = (const int*)a;
  const int* y = (const int*)b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* A distributed graph's neighbours with their weights, sorted (MPI leaves their order open). */
static void print_dist(MPI_Comm comm, int rank, const char* name) {
  int in, out, weighted, i;
  MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  int *src = malloc(sizeof(int) * (in + 1)), *srcw = malloc(sizeof(int) * (in + 1));
  int *dst = malloc(sizeof(int) * (out + 1)), *dstw = malloc(sizeof(int) * (out + 1));
  int pairs[2 * 16];
  MPI_Dist_graph_neighbors(comm, in, src, weighted ? srcw : MPI_UNWEIGHTED, out, dst,
                           weighted ? dstw : MPI_UNWEIGHTED);
  printf("rank %d %s weighted %d in", rank, name, weighted);
  for (i = 0; i < in && i < 16; ++i) {
    pairs[2 * i] = src[i];
    pairs[2 * i + 1] = weighted ? srcw[i] : 0;
  }
  qsort(pairs, in < 16 ? in : 16, 2 * sizeof(int), by_rank);
  for (i = 0; i < in && i < 16; ++i) printf(" %d/%d", pairs[2 * i], pairs[2 * i + 1]);
  printf(" out");
  for (i = 0; i < out && i < 16; ++i) {
    pairs[2 * i] = dst[i];
    pairs[2 * i + 1] = weighted ? dstw[i] : 0;
  }
  qsort(pairs, out < 16 ? out : 16, 2 * sizeof(int), by_rank);
  for (i = 0; i < out && i < 16; ++i) printf(" %d/%d", pairs[2 * i], pairs[2 * i + 1]);
  printf("\n");
  free(src);
  free(srcw);
  free(dst);
  free(dstw);
}

int main(int argc, char** argv) {
  int rank, size, i, kind;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  if (rank == 0) {
    static const int cases[][2] = {{6, 2},   {12, 2}, {16, 3},   {24, 3},  {48, 4}, {60, 3},
                                   {210, 3}, {64, 4}, {1024, 3}, {720, 4}, {7, 2},  {1, 3}};
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
      int d[4] = {0, 0, 0, 0}, k;
      MPI_Dims_create(cases[i][0], cases[i][1], d);
      printf("rank 0 dims %d in %d:", cases[i][0], cases[i][1]);
      for (k = 0; k < cases[i][1]; ++k) printf(" %d", d[k]);
      printf("\n");
    }
    int fixed[3] = {0, 3, 0};
    MPI_Dims_create(6, 3, fixed);
    printf("rank 0 dims 6 in (0,3,0): %d %d %d\n", fixed[0], fixed[1], fixed[2]);
    fixed[0] = fixed[2] = 0;
    expect(error_class(MPI_Dims_create(7, 3, fixed)) == MPI_ERR_DIMS, 0, "7 in (0,3,0)");
    fixed[0] = -1;
    expect(error_class(MPI_Dims_create(6, 3, fixed)) == MPI_ERR_DIMS, 0, "negative dims");
  }

  MPI_Topo_test(MPI_COMM_WORLD, &kind);
  expect(kind == MPI_UNDEFINED, rank, "the world has no topology");

  /* 3 x 2, periodic in the first dimension only. */
  int dims[2] = {3, 2}, periods[2] = {1, 0}, coords[2], src, dst, r;
  MPI_Comm cart, row, column, dup;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  MPI_Topo_test(cart, &kind);
  expect(kind == MPI_CART, rank, "cart topo test");
  int ndims, gd[2], gp[2];
  MPI_Cartdim_get(cart, &ndims);
  MPI_Cart_get(cart, 2, gd, gp, coords);
  printf("rank %d cart ndims %d dims %d %d periods %d %d coords %d %d\n", rank, ndims, gd[0], gd[1],
         gp[0], gp[1], coords[0], coords[1]);
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  printf("rank %d shift dim 0 by 1: from %d to %d\n", rank, src, dst);
  MPI_Cart_shift(cart, 0, -4, &src, &dst);
  printf("rank %d shift dim 0 by -4: from %d to %d\n", rank, src, dst);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  printf("rank %d shift dim 1 by 1: from %d to %d\n", rank, src == MPI_PROC_NULL ? -1 : src,
         dst == MPI_PROC_NULL ? -1 : dst);
  int wrapped[2] = {coords[0] + 3, coords[1]}, back[2];
  MPI_Cart_rank(cart, wrapped, &r);
  expect(r == rank, rank, "cart rank wraps");
  MPI_Cart_coords(cart, (rank + 1) % size, 2, back);
  printf("rank %d coords of %d: %d %d\n", rank, (rank + 1) % size, back[0], back[1]);
  int off[2] = {0, 2};
  expect(error_class(MPI_Cart_rank(cart, off, &r)) == MPI_ERR_ARG, rank, "off the grid");
  expect(error_class(MPI_Cart_coords(cart, 2 * size, 2, back)) == MPI_ERR_RANK, rank, "bad rank");
  expect(error_class(MPI_Graphdims_get(cart, &r, &r)) == MPI_ERR_TOPOLOGY, rank, "not a graph");
  expect(error_class(MPI_Cartdim_get(MPI_COMM_WORLD, &r)) == MPI_ERR_TOPOLOGY, rank, "no topo");

  int keep_first[2] = {1, 0}, keep_second[2] = {0, 1}, sub_rank, sub_size, sub_dims;
  MPI_Cart_sub(cart, keep_first, &column);
  MPI_Cart_sub(cart, keep_second, &row);
  MPI_Comm_rank(column, &sub_rank);
  MPI_Comm_size(column, &sub_size);
  MPI_Cartdim_get(column, &sub_dims);
  MPI_Cart_get(column, 1, gd, gp, back);
  printf("rank %d column rank %d of %d ndims %d dims %d periodic %d coord %d\n", rank, sub_rank,
         sub_size, sub_dims, gd[0], gp[0], back[0]);
  MPI_Comm_rank(row, &sub_rank);
  MPI_Comm_size(row, &sub_size);
  MPI_Cart_get(row, 1, gd, gp, back);
  printf("rank %d row rank %d of %d dims %d periodic %d coord %d\n", rank, sub_rank, sub_size,
         gd[0], gp[0], back[0]);

  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &kind);
  MPI_Cart_get(dup, 2, gd, gp, back);
  expect(kind == MPI_CART && gd[0] == 3 && gp[0] == 1 && back[0] == coords[0], rank, "dup");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&row);
  MPI_Comm_free(&column);
  MPI_Comm_free(&cart);

  /* A grid on 4 of the 6 processes. */
  int small[2] = {2, 2}, none[2] = {0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 2, small, none, 1, &cart);
  printf("rank %d in the 2 x 2 grid: %s\n", rank, cart == MPI_COMM_NULL ? "no" : "yes");
  if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
  int big[2] = {4, 2};
  expect(error_class(MPI_Cart_create(MPI_COMM_WORLD, 2, big, none, 0, &cart)) == MPI_ERR_ARG, rank,
         "grid larger than the communicator");

  /* Open MPI 4.1 maps the processes beyond the grid too: only those inside are checked. */
  MPI_Cart_map(MPI_COMM_WORLD, 2, small, none, &r);
  expect(rank >= 4 || (r >= 0 && r < 4), rank, "cart map");

  /* A ring whose nodes also link to the opposite one. */
  int index[6], edges[18], k = 0, nnodes, nedges, count, nb[8];
  for (i = 0; i < size; ++i) {
    edges[k++] = (i + size - 1) % size;
    edges[k++] = (i + 1) % size;
    edges[k++] = (i + size / 2) % size;
    index[i] = k;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  MPI_Topo_test(graph, &kind);
  expect(kind == MPI_GRAPH, rank, "graph topo test");
  MPI_Graphdims_get(graph, &nnodes, &nedges);
  MPI_Graph_neighbors_count(graph, (rank + 2) % size, &count);
  MPI_Graph_neighbors(graph, (rank + 2) % size, 8, nb);
  printf("rank %d graph %d nodes %d edges, node %d has %d: %d %d %d\n", rank, nnodes, nedges,
         (rank + 2) % size, count, nb[0], nb[1], nb[2]);
  int got_index[6], got_edges[18];
  MPI_Graph_get(graph, 6, 18, got_index, got_edges);
  expect(got_index[5] == 18 && got_edges[17] == edges[17], rank, "graph get");
  MPI_Comm_dup(graph, &dup);
  MPI_Graphdims_get(dup, &nnodes, &nedges);
  expect(nnodes == size && nedges == 3 * size, rank, "graph dup");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&graph);
  MPI_Graph_map(MPI_COMM_WORLD, 3, index, edges, &r);
  expect(rank >= 3 || (r >= 0 && r < 3), rank, "graph map");

  /* Rank 0 gives every edge: i -> i+1 (weight 10 i) and i -> i+2 (weight 10 i + 1). */
  MPI_Comm dist;
  int sources[6], degrees[6], targets[12], weights[12];
  for (i = 0; i < size; ++i) {
    sources[i] = i;
    degrees[i] = 2;
    targets[2 * i] = (i + 1) % size;
    targets[2 * i + 1] = (i + 2) % size;
    weights[2 * i] = 10 * i;
    weights[2 * i + 1] = 10 * i + 1;
  }
  MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? size : 0, sources, degrees, targets,
                        rank == 0 ? weights : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dist);
  MPI_Topo_test(dist, &kind);
  expect(kind == MPI_DIST_GRAPH, rank, "dist graph topo test");
  print_dist(dist, rank, "dist graph");
  MPI_Comm_free(&dist);

  /* Each process gives its own edges, unweighted: to the next two. (The weights argument is
   * chosen at run time: Open MPI's header makes gcc warn about the constant.) */
  int mine[1] = {rank}, two[1] = {2}, next[2] = {(rank + 1) % size, (rank + 2) % size};
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, mine, two, next, size > 0 ? MPI_UNWEIGHTED : weights,
                        MPI_INFO_NULL, 0, &dist);
  print_dist(dist, rank, "own edges");
  MPI_Comm_free(&dist);

  /* Adjacent: neighbours in the order given, with weights. */
  int prev[2] = {(rank + size - 1) % size, (rank + size - 2) % size}, in_w[2] = {1, 2};
  int out_w[2] = {3, 4}, in, out, weighted, s[2], sw[2], d[2], dw[2];
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, prev, in_w, 2, next, out_w, MPI_INFO_NULL, 0,
                                 &dist);
  MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted);
  MPI_Dist_graph_neighbors(dist, 2, s, sw, 2, d, dw);
  printf("rank %d adjacent %d in %d out weighted %d: %d/%d %d/%d -> %d/%d %d/%d\n", rank, in, out,
         weighted, s[0], sw[0], s[1], sw[1], d[0], dw[0], d[1], dw[1]);
  MPI_Comm_free(&dist);

  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
