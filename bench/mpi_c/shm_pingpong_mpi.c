/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI side of bench/run shm_vs_vader: the same 8 B ping-pong and windowed streaming as
 * bench/shm_pingpong.cc, in C over real Open MPI (run with --mca btl self,vader, 2 ranks).
 *   shm_pingpong_mpi [ITERATIONS]
 * Rank 0 prints "latency_8B_us L" and "bandwidth_<bytes>B_mbps B" (MB/s = 1e6 bytes/s).
 * Every message is checked as the postbox program checks it; a damaged one exits 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LATENCY_BYTES 8
#define WARMUP 1000
#define VARIANTS 4

static int rank, peer;

/* Byte i of message seq: bench/shm_pingpong.cc's Pattern. */
static unsigned char pattern(uint64_t seq, size_t i) {
  return (unsigned char)((i * 31u) ^ (seq * 7u + 1u));
}

static void fill(unsigned char* b, size_t n, uint64_t seq) {
  for (size_t i = 0; i < n; ++i) b[i] = pattern(seq, i);
}

static void damaged(const char* what) {
  fprintf(stderr, "shm_pingpong_mpi rank %d: %s damaged\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Every byte when full, else first, last and every 4099th (as the postbox program does). */
static int check(const unsigned char* b, size_t n, uint64_t seq, int full) {
  if (n == 0) return 1;
  if (full) {
    for (size_t i = 0; i < n; ++i) {
      if (b[i] != pattern(seq, i)) return 0;
    }
    return 1;
  }
  if (b[0] != pattern(seq, 0) || b[n - 1] != pattern(seq, n - 1)) return 0;
  for (size_t i = 4099; i < n; i += 4099) {
    if (b[i] != pattern(seq, i)) return 0;
  }
  return 1;
}

static double latency(int iterations) {
  unsigned char out[LATENCY_BYTES], in[LATENCY_BYTES];
  double start = 0;
  for (int i = -WARMUP; i < iterations; ++i) {
    if (i == 0) start = MPI_Wtime();
    const uint64_t seq = (uint64_t)(i + WARMUP) * 2;
    if (rank == 0) {
      fill(out, LATENCY_BYTES, seq);
      MPI_Send(out, LATENCY_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(in, LATENCY_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!check(in, LATENCY_BYTES, seq + 1, 1)) damaged("ping-pong reply");
    } else {
      MPI_Recv(in, LATENCY_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!check(in, LATENCY_BYTES, seq, 1)) damaged("ping-pong request");
      fill(out, LATENCY_BYTES, seq + 1);
      MPI_Send(out, LATENCY_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) * 1e6 / iterations / 2;
}

/* messages one way, window at a time (Isend / Irecv + Waitall), each window closed by an
 * 8 B ack from rank 1: the osu_bw pattern. One untimed window first. */
static double bandwidth(size_t n, int messages, int window) {
  unsigned char ack[LATENCY_BYTES];
  unsigned char* variants = NULL;
  unsigned char* recvs = NULL;
  MPI_Request* rs = malloc(sizeof(MPI_Request) * (size_t)window);
  memset(ack, 0xa5, sizeof ack);
  if (rank == 0) {
    variants = malloc(n * VARIANTS);
    for (int v = 0; v < VARIANTS; ++v) fill(variants + (size_t)v * n, n, 1000 + (uint64_t)v);
  } else {
    recvs = malloc(n * (size_t)window);
    memset(recvs, 0, n * (size_t)window);
  }
  const int windows = messages / window;
  double start = 0;
  for (int w = -1; w < windows; ++w) {
    if (w == 0) start = MPI_Wtime();
    for (int j = 0; j < window; ++j) {
      const int k = (w + 1) * window + j;
      if (rank == 0) {
        MPI_Isend(variants + (size_t)(k % VARIANTS) * n, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
                  &rs[j]);
      } else {
        MPI_Irecv(recvs + (size_t)j * n, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rs[j]);
      }
    }
    MPI_Waitall(window, rs, MPI_STATUSES_IGNORE);
    if (rank == 0) {
      unsigned char got[LATENCY_BYTES];
      MPI_Recv(got, LATENCY_BYTES, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (memcmp(got, ack, sizeof ack) != 0) damaged("window ack");
    } else {
      for (int j = 0; j < window; ++j) {
        const int k = (w + 1) * window + j;
        if (!check(recvs + (size_t)j * n, n, 1000 + (uint64_t)(k % VARIANTS),
                   j == 0 || j == window - 1)) {
          damaged("stream message");
        }
      }
      MPI_Send(ack, LATENCY_BYTES, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
    }
  }
  const double seconds = MPI_Wtime() - start;
  free(variants);
  free(recvs);
  free(rs);
  return (double)n * windows * window / seconds / 1e6;
}

int main(int argc, char** argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 100000;
  if (size != 2 || iterations <= 0) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 shm_pingpong_mpi [ITERATIONS>0]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  peer = 1 - rank;
  /* The streams of bench/shm_pingpong.cc's kStreams: size, messages, window. */
  const struct {
    size_t bytes;
    int messages, window;
  } streams[] = {{65536, 20000, 64}, {4194304, 400, 16}};
  const double lat = latency(iterations);
  if (rank == 0) printf("latency_8B_us %.4f\n", lat);
  for (size_t s = 0; s < sizeof streams / sizeof streams[0]; ++s) {
    const double mbps = bandwidth(streams[s].bytes, streams[s].messages, streams[s].window);
    if (rank == 0) printf("bandwidth_%zuB_mbps %.1f\n", streams[s].bytes, mbps);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
