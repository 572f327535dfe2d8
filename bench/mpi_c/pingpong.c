/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MPI ping-pong latency and bandwidth between ranks 0 and 1, measured as nicsim's built-in
 * mpi_pingpong measures them (sim/workloads/mpi_pingpong.cc), so that the same calls can be
 * timed through the C API (nicsim mpirun), the built-in workload, and other simulators (SMPI).
 *   pingpong latency ITERATIONS SIZE...
 *       per size: 3 untimed round trips, then ITERATIONS timed; latency = half a round trip
 *   pingpong bandwidth MESSAGES WINDOW SIZE...
 *       per size: MESSAGES messages, WINDOW in flight (Isend/Irecv, Waitall), one way, then
 *       both ways, each between two zero-byte Sendrecv line-ups
 *   pingpong both ITERATIONS MESSAGES WINDOW SIZE...
 *       per size the latency rounds and then the bandwidth, mpi_pingpong's exact sequence
 * Rank 0 prints "size S latency_us L" and/or "size S oneway_mbps A bidir_mbps B". Every
 * message carries a pattern its receiver checks; a damaged one makes the exit status 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, peer, damaged;

static void fill(unsigned char* b, size_t n, unsigned key) {
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(i * 31u + key);
}

static void check(const unsigned char* b, size_t n, unsigned key) {
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != (unsigned char)(i * 31u + key)) {
      ++damaged;
      return;
    }
  }
}

static void latency(size_t n, int iterations) {
  unsigned char* out = malloc(n + 1);
  unsigned char* in = malloc(n + 1);
  double t0 = 0;
  for (int i = -3; i < iterations; ++i) {
    if (i == 0) t0 = MPI_Wtime();
    const unsigned key = (unsigned)(i + 3) * 2u;
    if (rank == 0) {
      fill(out, n, key);
      MPI_Send(out, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(in, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(in, n, key + 1);
    } else {
      MPI_Recv(in, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(in, n, key);
      fill(out, n, key + 1);
      MPI_Send(out, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("size %zu latency_us %.6f\n", n, (MPI_Wtime() - t0) * 1e6 / iterations / 2);
  free(out);
  free(in);
}

static void bandwidth(size_t n, int messages, int window) {
  const size_t slot = n > 0 ? n : 1;
  unsigned char* sends = malloc(slot * (size_t)window);
  unsigned char* recvs = malloc(slot * (size_t)window);
  MPI_Request* rs = malloc(sizeof(MPI_Request) * 2 * (size_t)window);
  double mbps[2] = {0, 0};
  int none = 0;
  for (int both = 0; both < 2; ++both) {
    MPI_Sendrecv(&none, 0, MPI_BYTE, peer, 2, &none, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    const double start = MPI_Wtime();
    const int sending = rank == 0 || both, receiving = rank == 1 || both;
    for (int done = 0; done < messages; done += window) {
      int k = 0;
      for (int j = 0; j < window; ++j) {
        unsigned char* r = recvs + (size_t)j * slot;
        unsigned char* s = sends + (size_t)j * slot;
        if (receiving) MPI_Irecv(r, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rs[k++]);
        if (sending) {
          fill(s, n, (unsigned)(done + j) * 2u + (unsigned)rank);
          MPI_Isend(s, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rs[k++]);
        }
      }
      MPI_Waitall(k, rs, MPI_STATUSES_IGNORE);
      for (int j = 0; receiving && j < window; ++j) {
        check(recvs + (size_t)j * slot, n, (unsigned)(done + j) * 2u + (unsigned)peer);
      }
    }
    MPI_Sendrecv(&none, 0, MPI_BYTE, peer, 2, &none, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    mbps[both] = (double)n * messages * (both ? 2 : 1) / (MPI_Wtime() - start) / 1e6;
  }
  if (rank == 0) printf("size %zu oneway_mbps %.3f bidir_mbps %.3f\n", n, mbps[0], mbps[1]);
  free(sends);
  free(recvs);
  free(rs);
}

int main(int argc, char** argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  const int lat = strcmp(mode, "latency") == 0 || strcmp(mode, "both") == 0;
  const int bw = strcmp(mode, "bandwidth") == 0 || strcmp(mode, "both") == 0;
  const int first = strcmp(mode, "both") == 0 ? 5 : lat ? 3 : 4;
  if (size < 2 || (!lat && !bw) || argc <= first) {
    if (rank == 0) {
      fprintf(stderr,
              "usage: pingpong latency ITERATIONS SIZE... | bandwidth MESSAGES WINDOW "
              "SIZE... | both ITERATIONS MESSAGES WINDOW SIZE... (2 ranks or more)\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int iterations = atoi(argv[2]);
  const int messages = atoi(argv[lat ? 3 : 2]), window = atoi(argv[lat ? 4 : 3]);
  peer = 1 - rank;
  for (int a = first; a < argc && rank <= 1; ++a) {
    const size_t n = (size_t)atol(argv[a]);
    if (lat) latency(n, iterations);
    if (bw) bandwidth(n, messages, window);
  }
  if (damaged) printf("rank %d: %d messages damaged\n", rank, damaged);
  fflush(stdout);
  MPI_Finalize();
  return damaged ? 1 : 0;
}
