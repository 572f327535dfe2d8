/* SPDX-License-Identifier: Apache-2.0 */
/* gsm_pubsub: producers and consumers on the gsm service. Checks that consumers see every
 * producer's latest data, contexts, drop and re-add while running, a silent producer failed
 * and re-registered, and a close without drop cleaned up.
 *
 * Usage: gsm_pubsub NODES INTERVAL_US MODE(allgather|scatter). Needs NODES + 6 ranks or more:
 * ranks 0..NODES-1 serve, the last two ranks consume, the others produce. Lines starting
 * "observed:" depend on timing (real time under Open MPI); the others do not. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsm.h"

#define ROUNDS 10
#define PAYLOAD_INTS 6
#define FAILURE_INTERVALS 3
#define TAG_SEEN 55

typedef struct sample {
  int32_t producer;
  int32_t round;
  int32_t payload[PAYLOAD_INTS];
} sample;

static double interval_s;
static int fails;

/** Lets time pass (simulated time under nicsim: each empty probe advances it). */
static void sleep_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  int flag;
  while (MPI_Wtime() < until)
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

static sample make_sample(int producer, int round) {
  sample s;
  s.producer = producer;
  s.round = round;
  for (int j = 0; j < PAYLOAD_INTS; j++) s.payload[j] = producer * 1000 + round * 10 + j;
  return s;
}

static int sample_intact(const sample* s, int producer) {
  if (s->producer != producer || s->round < 1 || s->round > ROUNDS) return 0;
  for (int j = 0; j < PAYLOAD_INTS; j++)
    if (s->payload[j] != producer * 1000 + s->round * 10 + j) return 0;
  return 1;
}

static void must(int rc, int rank, const char* what) {
  if (rc != GSM_OK) {
    printf("rank %d FAIL %s: %s\n", rank, what, gsm_strerror(rc));
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/** Drop or close; a handle the service already failed (real-time scheduling) is reported. */
static void leave(int rc, int rank, const char* what) {
  if (rc == GSM_ERR_EXPIRED)
    printf("observed: rank %d %s: expired unexpectedly\n", rank, what);
  else
    must(rc, rank, what);
}

static gsm_handle register_producer(gsm_t* g, int rank) {
  gsm_handle h;
  must(gsm_open(g, &h), rank, "open");
  must(gsm_add(g, h, rank), rank, "add");
  return h;
}

/** Puts; a handle failed by the service (silence) is re-registered, which the run reports. */
static gsm_handle put_round(gsm_t* g, gsm_handle h, int rank, int round, int expect_expired) {
  sample s = make_sample(rank, round);
  int rc = gsm_put(g, h, &s, (int)sizeof(s), NULL);
  if (rc == GSM_ERR_EXPIRED) {
    if (expect_expired)
      printf("producer %d: put after silence: %s; registering again\n", rank, gsm_strerror(rc));
    else
      printf("observed: producer %d expired unexpectedly; registering again\n", rank);
    h = register_producer(g, rank);
    rc = gsm_put(g, h, &s, (int)sizeof(s), NULL);
  } else if (expect_expired) {
    printf("producer %d FAIL: put after silence succeeded\n", rank);
    fails++;
  }
  must(rc, rank, "put");
  return h;
}

static void producer(gsm_t* g, int rank, int role, int consumers) {
  gsm_handle h = register_producer(g, rank);
  for (int round = 1; round <= ROUNDS; round++) {
    h = put_round(g, h, rank, round, role == 3 && round == 6);
    sleep_for(interval_s / 2);
    if (round == 5 && role == 1) {
      /* Drop and add while the others run: consumers see it leave, then come back. */
      sleep_for(2 * interval_s);
      leave(gsm_drop(g, h), rank, "drop");
      leave(gsm_close(g, h), rank, "close");
      sleep_for(3 * interval_s);
      h = register_producer(g, rank);
    }
    if (round == 5 && role == 3) sleep_for((FAILURE_INTERVALS + 3) * interval_s); /* silent */
  }
  /* Stay registered, alive, until every consumer has seen the last round. */
  int seen = 0;
  while (seen < consumers) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_SEEN, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      int dummy;
      MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_SEEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      seen++;
      continue;
    }
    if (gsm_heartbeat(g, h) == GSM_ERR_EXPIRED) {
      printf("observed: producer %d expired while waiting; registering again\n", rank);
      h = register_producer(g, rank);
      put_round(g, h, rank, ROUNDS, 0);
    }
    sleep_for(interval_s / 2);
  }
  if (role == 2) {
    leave(gsm_close(g, h), rank, "close"); /* still registered: the service cleans up */
    printf("producer %d: %d rounds put, closed without drop\n", rank, ROUNDS);
  } else {
    leave(gsm_drop(g, h), rank, "drop");
    leave(gsm_close(g, h), rank, "close");
    printf("producer %d: %d rounds put, dropped and closed%s\n", rank, ROUNDS,
           role == 1   ? " (dropped and re-added at round 5)"
           : role == 3 ? " (failed by silence at round 5, registered again)"
                       : "");
  }
}

static void consumer(gsm_t* g, int rank, int* ids, int nids, int producers_first, int producers) {
  gsm_handle h;
  must(gsm_open(g, &h), rank, "open");
  must(gsm_ioctl(g, h, GSM_IOCTL_SET_CONTEXT, ids, &nids), rank, "ioctl");
  int last_round[GSM_MAX_PRODUCERS], was_present[GSM_MAX_PRODUCERS], left[GSM_MAX_PRODUCERS];
  memset(last_round, 0, sizeof(last_round));
  memset(was_present, 0, sizeof(was_present));
  memset(left, 0, sizeof(left));
  gsm_record records[GSM_MAX_PRODUCERS];
  sample data[GSM_MAX_PRODUCERS];
  int outside = 0, corrupt = 0, backwards = 0, all_final = 0, gone = 0;
  double worst_staleness = 0, worst_age = 0;
  const double deadline = MPI_Wtime() + 5000 * interval_s;
  while (MPI_Wtime() < deadline) {
    int n = GSM_MAX_PRODUCERS;
    int rc = gsm_get(g, h, records, data, &n);
    if (rc == GSM_ERR_EXPIRED) {
      /* Only a consumer descheduled for K intervals (real time, a loaded host) gets here. */
      printf("observed: consumer %d expired unexpectedly; registering again\n", rank);
      int count = nids;
      must(gsm_open(g, &h), rank, "open");
      must(gsm_ioctl(g, h, GSM_IOCTL_SET_CONTEXT, ids, &count), rank, "ioctl");
      continue;
    }
    must(rc, rank, "get");
    const double now = MPI_Wtime();
    int present[GSM_MAX_PRODUCERS] = {0};
    for (int i = 0; i < n; i++) {
      const int p = records[i].producer_id;
      int in_context = 0;
      for (int k = 0; k < nids; k++) in_context |= ids[k] == p;
      if (!in_context) outside++;
      if (!sample_intact(&data[i], p) || records[i].len_bytes != (int)sizeof(sample)) corrupt++;
      if (data[i].round < last_round[p]) backwards++;
      last_round[p] = data[i].round;
      present[p] = 1;
      const double staleness = records[i].visible_time_s - records[i].put_time_s;
      if (staleness > worst_staleness) worst_staleness = staleness;
      if (now - records[i].put_time_s > worst_age) worst_age = now - records[i].put_time_s;
    }
    for (int k = 0; k < nids; k++) {
      if (was_present[ids[k]] && !present[ids[k]] && !all_final) left[ids[k]] = 1;
      if (present[ids[k]]) was_present[ids[k]] = 1;
    }
    if (!all_final) {
      int final_count = 0;
      for (int k = 0; k < nids; k++) final_count += last_round[ids[k]] == ROUNDS && present[ids[k]];
      if (final_count == nids) {
        all_final = 1;
        for (int p = producers_first; p < producers_first + producers; p++) {
          int one = 1;
          MPI_Send(&one, 1, MPI_INT, p, TAG_SEEN, MPI_COMM_WORLD);
        }
      }
    } else if (n == 0) {
      gone = 1;
      break;
    }
    sleep_for(interval_s / 4);
  }
  printf("consumer %d: context", rank);
  for (int k = 0; k < nids; k++) printf(" %d=round%d", ids[k], last_round[ids[k]]);
  printf("; data intact: %s; outside context: %d; never backwards: %s; all gone at the end: %s\n",
         corrupt ? "no" : "yes", outside, backwards ? "no" : "yes", gone ? "yes" : "no");
  if (corrupt || outside || backwards || !gone || !all_final) fails++;
  for (int k = 0; k < nids; k++)
    if (left[ids[k]])
      printf("observed: consumer %d saw producer %d leave and come back\n", rank, ids[k]);
  gsm_stats st;
  must(gsm_stats_get(g, &st), rank, "stats");
  const double bound = st.interval_s + st.propagation_max_s;
  printf(
      "observed: consumer %d staleness max %.1f us, bound (interval %.1f + longest propagation "
      "%.1f) %.1f us: within bound: %s; oldest data read %.1f us\n",
      rank, worst_staleness * 1e6, st.interval_s * 1e6, st.propagation_max_s * 1e6, bound * 1e6,
      worst_staleness <= bound ? "yes" : "no", worst_age * 1e6);
  leave(gsm_close(g, h), rank, "close");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nodes = argc > 1 ? atoi(argv[1]) : 2;
  interval_s = (argc > 2 ? atof(argv[2]) : 200.0) * 1e-6;
  const int scatter = argc > 3 && strcmp(argv[3], "scatter") == 0;
  if (size < nodes + 6) {
    if (rank == 0) printf("FAIL: needs %d ranks or more\n", nodes + 6);
    MPI_Finalize();
    return 1;
  }
  gsm_config config = {nodes,
                       interval_s,
                       64,
                       (int)sizeof(sample),
                       scatter ? GSM_MODE_SCATTER : GSM_MODE_ALLGATHER,
                       FAILURE_INTERVALS};
  gsm_t* g;
  must(gsm_init(MPI_COMM_WORLD, &config, &g), rank, "init");
  const int producers_first = nodes, consumers_first = size - 2;
  const int producers = consumers_first - producers_first;
  if (gsm_is_service(g)) {
    must(gsm_service_run(g), rank, "service");
    gsm_stats st;
    must(gsm_stats_get(g, &st), rank, "stats");
    printf("service node %d: done\n", gsm_node(g));
    printf(
        "observed: service node %d: propagations %llu, bytes sent %llu, received %llu, "
        "new records %llu, staleness max %.1f us mean %.1f us, propagation max %.1f us "
        "mean %.1f us, puts %llu, gets %llu, adds %llu, drops %llu, failures detected %llu, "
        "closed without drop %llu, connections max %llu\n",
        gsm_node(g), (unsigned long long)st.propagations, (unsigned long long)st.bytes_sent,
        (unsigned long long)st.bytes_received, (unsigned long long)st.new_records,
        st.staleness_max_s * 1e6,
        st.new_records ? st.staleness_sum_s / (double)st.new_records * 1e6 : 0.0,
        st.propagation_max_s * 1e6,
        st.propagations ? st.propagation_sum_s / (double)st.propagations * 1e6 : 0.0,
        (unsigned long long)st.puts, (unsigned long long)st.gets, (unsigned long long)st.adds,
        (unsigned long long)st.drops, (unsigned long long)st.failures_detected,
        (unsigned long long)st.closed_without_drop, (unsigned long long)st.connections_max);
  } else if (rank < consumers_first) {
    producer(g, rank, (rank - producers_first) % 4, 2);
  } else if (rank == consumers_first) {
    int ids[GSM_MAX_PRODUCERS];
    for (int p = 0; p < producers; p++) ids[p] = producers_first + p;
    consumer(g, rank, ids, producers, producers_first, producers);
  } else {
    int ids[2] = {producers_first, producers_first + 3};
    consumer(g, rank, ids, 2, producers_first, producers);
  }
  gsm_finalize(g);
  if (fails) printf("rank %d FAIL %d checks\n", rank, fails);
  MPI_Finalize();
  return 0;
}
