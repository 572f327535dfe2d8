/* SPDX-License-Identifier: Apache-2.0 */
/* gsm_bench: M producers and N consumers sharing latest values through the gsm service, or
 * directly point to point (each put sent to every consumer), for bench/run lgsm.
 * Usage: gsm_bench NODES M N INTERVAL_US ROUNDS allgather|scatter|p2p, NODES + M + N ranks:
 * ranks 0..NODES-1 serve (idle in p2p), then producers, then consumers. Rank 0 prints
 * connections (as counted in the run: the most each service held open at once, summed; point
 * to point, the producers each consumer heard from, summed), bytes moved and the lag from a
 * producer's last put to a consumer seeing it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsm.h"

#define TAG_DIRECT 71

typedef struct sample {
  int32_t producer;
  int32_t round;
  double put_time_s;
  int32_t pad[4];
} sample; /* 32 bytes, gsm_pubsub's slot size */

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
  if (argc < 7) MPI_Abort(MPI_COMM_WORLD, 2);
  const int nodes = atoi(argv[1]), m = atoi(argv[2]), n = atoi(argv[3]);
  const double interval = atof(argv[4]) * 1e-6;
  const int rounds = atoi(argv[5]);
  const int p2p = strcmp(argv[6], "p2p") == 0;
  const int scatter = strcmp(argv[6], "scatter") == 0;
  if (size != nodes + m + n || m + 1 > GSM_MAX_PRODUCERS) MPI_Abort(MPI_COMM_WORLD, 2);
  const int first_producer = nodes, first_consumer = nodes + m;
  const int is_producer = rank >= first_producer && rank < first_consumer;
  const int is_consumer = rank >= first_consumer;
  double lag_max = 0, lag_sum = 0;
  unsigned long long bytes = 0, records = 0, connections = 0;
  gsm_t* g = NULL;
  if (!p2p) {
    gsm_config config = {nodes,
                         interval,
                         m + nodes,
                         (int)sizeof(sample),
                         scatter ? GSM_MODE_SCATTER : GSM_MODE_ALLGATHER,
                         3};
    if (gsm_init(MPI_COMM_WORLD, &config, &g) != GSM_OK) MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (rank < nodes) {
    if (!p2p) {
      gsm_service_run(g);
      gsm_stats st;
      gsm_stats_get(g, &st);
      bytes = st.bytes_received;
      records = st.propagations; /* reused: rounds, summed over services */
      connections = st.connections_max;
    }
  } else if (is_producer) {
    gsm_handle h = 0;
    if (!p2p && (gsm_open(g, &h) != GSM_OK || gsm_add(g, h, rank) != GSM_OK))
      MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Request* reqs = (MPI_Request*)malloc(sizeof(MPI_Request) * (size_t)n);
    for (int r = 1; r <= rounds; r++) {
      sample s;
      memset(&s, 0, sizeof(s));
      s.producer = rank;
      s.round = r;
      s.put_time_s = MPI_Wtime();
      if (p2p) {
        for (int c = 0; c < n; c++)
          MPI_Isend(&s, (int)sizeof(s), MPI_BYTE, first_consumer + c, TAG_DIRECT, MPI_COMM_WORLD,
                    &reqs[c]);
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        bytes += (unsigned long long)n * sizeof(s);
      } else if (gsm_put(g, h, &s, (int)sizeof(s), NULL) != GSM_OK) {
        MPI_Abort(MPI_COMM_WORLD, 5);
      }
      sleep_for(interval / 2);
    }
    free(reqs);
    if (!p2p) {
      /* Stay until the consumers have read the last round. */
      int token;
      for (int c = 0; c < n; c++) {
        int flag = 0;
        while (!flag) {
          MPI_Iprobe(MPI_ANY_SOURCE, 72, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
          if (!flag) {
            gsm_heartbeat(g, h);
            sleep_for(interval / 2);
          }
        }
        MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      gsm_drop(g, h);
      gsm_close(g, h);
    }
  } else if (is_consumer) {
    int* last = (int*)calloc((size_t)size, sizeof(int));
    int finished = 0;
    if (p2p) {
      while (finished < m) {
        sample s;
        MPI_Recv(&s, (int)sizeof(s), MPI_BYTE, MPI_ANY_SOURCE, TAG_DIRECT, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        last[s.producer] = s.round;
        if (s.round == rounds) {
          const double lag = MPI_Wtime() - s.put_time_s;
          lag_sum += lag;
          if (lag > lag_max) lag_max = lag;
          finished++;
        }
      }
    } else {
      gsm_handle h;
      int* ids = (int*)malloc(sizeof(int) * (size_t)m);
      for (int i = 0; i < m; i++) ids[i] = first_producer + i;
      int count = m;
      if (gsm_open(g, &h) != GSM_OK ||
          gsm_ioctl(g, h, GSM_IOCTL_SET_CONTEXT, ids, &count) != GSM_OK)
        MPI_Abort(MPI_COMM_WORLD, 6);
      gsm_record* recs = (gsm_record*)malloc(sizeof(gsm_record) * (size_t)m);
      sample* data = (sample*)malloc(sizeof(sample) * (size_t)m);
      while (finished < m) {
        int got = m;
        if (gsm_get(g, h, recs, data, &got) != GSM_OK) MPI_Abort(MPI_COMM_WORLD, 7);
        const double now = MPI_Wtime();
        for (int i = 0; i < got; i++) {
          if (data[i].round == rounds && last[data[i].producer] != rounds) {
            const double lag = now - data[i].put_time_s;
            lag_sum += lag;
            if (lag > lag_max) lag_max = lag;
            finished++;
          }
          last[data[i].producer] = data[i].round;
        }
        if (finished < m) sleep_for(interval / 4);
      }
      for (int p = 0; p < m; p++) {
        int token = 1;
        MPI_Send(&token, 1, MPI_INT, first_producer + p, 72, MPI_COMM_WORLD);
      }
      gsm_close(g, h);
      free(ids);
      free(recs);
      free(data);
    }
    if (p2p) {
      for (int p = 0; p < size; p++) connections += last[p] != 0;
    }
    free(last);
  }
  if (g) gsm_finalize(g);
  double lag_max_all = 0, lag_sum_all = 0;
  unsigned long long bytes_all = 0, rounds_all = 0, connections_all = 0;
  MPI_Reduce(&lag_max, &lag_max_all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&lag_sum, &lag_sum_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bytes, &bytes_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&records, &rounds_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&connections, &connections_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const unsigned long long rounds_per_service = p2p ? 0 : rounds_all / (unsigned long long)nodes;
    printf(
        "mode %s M %d N %d nodes %d connections %llu bytes %llu propagations %llu "
        "bytes_per_propagation %.0f lag_max_us %.1f lag_mean_us %.1f\n",
        argv[6], m, n, nodes, connections_all, bytes_all, rounds_per_service,
        rounds_per_service ? (double)bytes_all / (double)rounds_per_service : 0.0,
        lag_max_all * 1e6, lag_sum_all / (double)(m * n) * 1e6);
  }
  MPI_Finalize();
  return 0;
}
