/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sim_scale workloads as a plain MPI C program, for SimGrid SMPI (bench/sim_scale.py
 * builds it with smpicc and runs it with smpirun beside nicsim's own runs):
 *   sim_scale_mpi alltoall MESSAGES MAX_SIZE SEED   each rank sends MESSAGES messages to
 *       random other ranks, sizes uniform in [0, MAX_SIZE]; every rank derives the whole plan
 *       from SEED, posts its receives, sends, waits, and checks every byte
 *   sim_scale_mpi allreduce SIZE...                 one MPI_Allreduce (sum of int32) per size
 *       in bytes, every element checked against the serial sum
 * The allreduce's serial sum costs n additions per element, so each rank checks the elements
 * whose index is its rank modulo 64: with 64 ranks or more every element is checked somewhere.
 * Exit 0 when everything checked out; 1 (after MPI_Abort) otherwise.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SplitMix64: the plan's random numbers. */
static uint64_t next_random(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint8_t pattern_byte(uint64_t message, uint64_t offset) {
  return (uint8_t)((message * 131 + offset * 7 + (offset >> 8)) & 0xff);
}

static void fail(const char* what, long a, long b) {
  fprintf(stderr, "sim_scale_mpi: %s (%ld, %ld)\n", what, a, b);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void alltoall(int rank, int n, long messages, long max_size, uint64_t seed) {
  const long total = messages * n;
  int* dst = malloc(sizeof(int) * (size_t)total);
  long* len = malloc(sizeof(long) * (size_t)total);
  long to_me = 0, mine = 0;
  uint64_t state = seed;
  for (long i = 0; i < total; ++i) {
    const int src = (int)(i / messages);
    int d = (int)(next_random(&state) % (uint64_t)(n - 1));
    if (d >= src) ++d;
    dst[i] = d;
    len[i] = (long)(next_random(&state) % (uint64_t)(max_size + 1));
    to_me += d == rank;
    mine += src == rank;
  }
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)(to_me + mine));
  uint8_t** bufs = malloc(sizeof(uint8_t*) * (size_t)(to_me + mine));
  long* which = malloc(sizeof(long) * (size_t)(to_me + mine));
  long r = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < total; ++i) {
    if (dst[i] != rank) continue;
    bufs[r] = malloc((size_t)len[i] + 1);
    which[r] = i;
    MPI_Irecv(bufs[r], (int)len[i], MPI_BYTE, (int)(i / messages), (int)(i % (1 << 20)),
              MPI_COMM_WORLD, &reqs[r]);
    ++r;
  }
  for (long i = rank * messages; i < (rank + 1) * messages; ++i) {
    bufs[r] = malloc((size_t)len[i] + 1);
    for (long k = 0; k < len[i]; ++k) bufs[r][k] = pattern_byte((uint64_t)i, (uint64_t)k);
    which[r] = i;
    MPI_Isend(bufs[r], (int)len[i], MPI_BYTE, dst[i], (int)(i % (1 << 20)), MPI_COMM_WORLD,
              &reqs[r]);
    ++r;
  }
  MPI_Waitall((int)r, reqs, MPI_STATUSES_IGNORE);
  for (long k = 0; k < to_me; ++k) {
    const long i = which[k];
    for (long b = 0; b < len[i]; ++b) {
      if (bufs[k][b] != pattern_byte((uint64_t)i, (uint64_t)b)) fail("damaged message", i, b);
    }
  }
  for (long k = 0; k < r; ++k) free(bufs[k]);
  free(bufs);
  free(which);
  free(reqs);
  free(len);
  free(dst);
}

static int32_t collective_value(int rank, long j) {
  return (int32_t)(((uint64_t)rank * 7919 + (uint64_t)j * 31 + 1) % 100003);
}

static void allreduce(int rank, int n, long size) {
  const long ints = size / 4 > 0 ? size / 4 : 1;
  int32_t* in = malloc(sizeof(int32_t) * (size_t)ints);
  int32_t* out = malloc(sizeof(int32_t) * (size_t)ints);
  for (long j = 0; j < ints; ++j) in[j] = collective_value(rank, j);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(in, out, (int)ints, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (long j = 0; j < ints; ++j) {
    int64_t sum = 0;
    /* Checked on a few elements per rank: the serial sum is n additions each. */
    if (j % 64 != rank % 64) continue;
    for (int q = 0; q < n; ++q) sum += collective_value(q, j);
    if (out[j] != (int32_t)sum) fail("wrong allreduce element", size, j);
  }
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const double start = MPI_Wtime();
  if (argc == 5 && strcmp(argv[1], "alltoall") == 0 && n >= 2) {
    alltoall(rank, n, atol(argv[2]), atol(argv[3]), strtoull(argv[4], NULL, 10));
  } else if (argc >= 3 && strcmp(argv[1], "allreduce") == 0) {
    for (int a = 2; a < argc; ++a) allreduce(rank, n, atol(argv[a]));
  } else {
    if (rank == 0) {
      fprintf(stderr,
              "usage: sim_scale_mpi alltoall MESSAGES MAX_SIZE SEED | "
              "allreduce SIZE...\n");
    }
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("sim_scale_mpi: %s on %d ranks checked, simulated_s %.9f\n", argv[1], n,
           MPI_Wtime() - start);
  }
  MPI_Finalize();
  return 0;
}
