/* SPDX-License-Identifier: Apache-2.0 */
/* gsm's service: serves its node's connections (local buffer, contexts, silence detection)
 * and propagates the local buffers of all nodes into each node's copy of the global buffer. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/** One client connection; a producer's slot of the local buffer lives in it. */
typedef struct connection {
  int used;
  gsm_handle handle;
  int owner;          /**< the client's rank in the node communicator */
  double last_seen_s; /**< the connection's last request */
  int producer_id;    /**< -1 until gsm_add */
  uint64_t seq;
  double put_time_s;
  int32_t len_bytes;
  int has_data;
  char* data;
  int is_consumer;
  uint64_t context[GSM_MASK_WORDS];
} connection;

/** One producer's slot in this node's copy of the global buffer. */
typedef struct global_slot {
  int valid;
  gsm_record record;
  char* data;
} global_slot;

struct gsm_service {
  connection conns[GSM_MAX_CONNECTIONS];
  global_slot* global; /**< max_producers slots */
  int next_handle;
  int clients;          /**< ranks of the node other than the service */
  int finished_clients; /**< clients that called gsm_finalize */
  double next_due_s;    /**< when the next propagation round is due */
  char* request;
  size_t request_cap;
  char* reply;
  size_t reply_cap;
  char* send_buf; /**< records this service contributes to a round */
  char* recv_buf;
  size_t recv_cap;
  gsm_stats stats;
};

int gsm_service_create(gsm_t* g) {
  gsm_service* s = (gsm_service*)calloc(1, sizeof(gsm_service));
  if (!s) return GSM_ERR_FULL;
  const int p = g->config.max_producers;
  s->global = (global_slot*)calloc((size_t)p, sizeof(global_slot));
  int node_size;
  MPI_Comm_size(g->node_comm, &node_size);
  s->clients = node_size - 1;
  s->next_handle = g->node * 1000000 + 1;
  s->reply_cap =
      sizeof(gsm_reply) + sizeof(gsm_stats) + (size_t)p * (g->record_bytes + sizeof(int32_t));
  s->reply = (char*)malloc(s->reply_cap);
  s->send_buf = (char*)malloc((size_t)GSM_MAX_CONNECTIONS * g->record_bytes + 1);
  if (!s->global || !s->reply || !s->send_buf) return GSM_ERR_FULL;
  for (int i = 0; i < p; i++) {
    s->global[i].data = (char*)malloc((size_t)g->config.slot_bytes + 1);
    if (!s->global[i].data) return GSM_ERR_FULL;
  }
  s->stats.interval_s = g->config.interval_s;
  g->service = s;
  /* Services agree on the first round's due time so they enter rounds together. */
  double now = MPI_Wtime(), start = 0;
  MPI_Allreduce(&now, &start, 1, MPI_DOUBLE, MPI_MAX, g->service_comm);
  s->next_due_s = start + g->config.interval_s;
  return GSM_OK;
}

static void release(connection* c) {
  free(c->data);
  memset(c, 0, sizeof(*c));
}

void gsm_service_destroy(gsm_t* g) {
  gsm_service* s = g->service;
  if (!s) return;
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++) release(&s->conns[i]);
  for (int i = 0; i < g->config.max_producers; i++) free(s->global[i].data);
  free(s->global);
  free(s->request);
  free(s->reply);
  free(s->send_buf);
  free(s->recv_buf);
  free(s);
  g->service = NULL;
}

static connection* find(gsm_service* s, gsm_handle h, int owner) {
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++)
    if (s->conns[i].used && s->conns[i].handle == h && s->conns[i].owner == owner)
      return &s->conns[i];
  return NULL;
}

static uint64_t open_count(const gsm_service* s) {
  uint64_t n = 0;
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++) n += (uint64_t)s->conns[i].used;
  return n;
}

/** The failure rule: a connection with no request for more than K intervals has failed;
 *  its registration and its local buffer slot go, and the handle answers EXPIRED after. */
static void expire_silent(gsm_t* g, double now) {
  gsm_service* s = g->service;
  const double limit = g->config.failure_intervals * g->config.interval_s;
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++) {
    connection* c = &s->conns[i];
    if (!c->used || now - c->last_seen_s <= limit) continue;
    /* A request of the client's waiting to be read (it came while a propagation round kept
     * the service from listening) is not silence: the client is seen now. */
    int waiting = 0;
    MPI_Iprobe(c->owner, GSM_TAG_REQUEST, g->node_comm, &waiting, MPI_STATUS_IGNORE);
    if (waiting) {
      c->last_seen_s = now;
      continue;
    }
    s->stats.failures_detected++;
    release(c);
  }
  s->stats.connections_open = open_count(s);
}

static int producer_taken(const gsm_service* s, int id) {
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++)
    if (s->conns[i].used && s->conns[i].producer_id == id) return 1;
  return 0;
}

static void reply(gsm_t* g, int dest, gsm_reply* r) {
  memcpy(g->service->reply, r, sizeof(*r));
  MPI_Send(g->service->reply, (int)(sizeof(*r) + (size_t)r->len_bytes), MPI_BYTE, dest,
           GSM_TAG_REPLY, g->node_comm);
}

/** GET: the context's producers present in this node's global buffer, as records. */
static void fill_get(gsm_t* g, const connection* c, gsm_reply* r, double now) {
  gsm_service* s = g->service;
  char* p = s->reply + sizeof(gsm_reply);
  for (int id = 0; id < g->config.max_producers; id++) {
    const global_slot* slot = &s->global[id];
    if (!slot->valid || !gsm_mask_has(c->context, id)) continue;
    memcpy(p, &slot->record, sizeof(gsm_record));
    memcpy(p + sizeof(gsm_record), slot->data, (size_t)slot->record.len_bytes);
    p += g->record_bytes;
    r->count++;
    const double age = now - slot->record.put_time_s;
    if (age > s->stats.get_age_max_s) s->stats.get_age_max_s = age;
  }
  r->len_bytes = (int32_t)(p - (s->reply + sizeof(gsm_reply)));
}

static void handle_request(gsm_t* g, int source, const gsm_request* q, const char* payload,
                           double now) {
  gsm_service* s = g->service;
  gsm_reply r;
  memset(&r, 0, sizeof(r));
  if (q->op == GSM_OP_FINI) {
    s->finished_clients++;
    return;
  }
  if (q->op == GSM_OP_STATS) {
    s->stats.connections_open = open_count(s);
    memcpy(s->reply + sizeof(gsm_reply), &s->stats, sizeof(gsm_stats));
    r.len_bytes = (int32_t)sizeof(gsm_stats);
    reply(g, source, &r);
    return;
  }
  if (q->op == GSM_OP_OPEN) {
    connection* c = NULL;
    for (int i = 0; i < GSM_MAX_CONNECTIONS && !c; i++)
      if (!s->conns[i].used) c = &s->conns[i];
    if (!c) {
      r.status = GSM_ERR_FULL;
    } else {
      c->used = 1;
      c->handle = s->next_handle++;
      c->owner = source;
      c->producer_id = -1;
      c->last_seen_s = now;
      c->data = (char*)malloc((size_t)g->config.slot_bytes + 1);
      if (!c->data) abort(); /* out of memory */
      r.value = c->handle;
      s->stats.connections_open = open_count(s);
      if (s->stats.connections_open > s->stats.connections_max)
        s->stats.connections_max = s->stats.connections_open;
    }
    reply(g, source, &r);
    return;
  }
  connection* c = find(s, q->handle, source);
  if (!c) {
    r.status = GSM_ERR_EXPIRED;
    reply(g, source, &r);
    return;
  }
  c->last_seen_s = now;
  switch (q->op) {
    case GSM_OP_ADD:
      if (q->arg < 0 || q->arg >= g->config.max_producers)
        r.status = GSM_ERR_ARG;
      else if (c->producer_id >= 0 || producer_taken(s, q->arg))
        r.status = GSM_ERR_BUSY;
      else {
        c->producer_id = q->arg;
        c->seq = 0;
        c->has_data = 0;
        s->stats.adds++;
      }
      break;
    case GSM_OP_PUT:
      if (c->producer_id < 0)
        r.status = GSM_ERR_STATE;
      else if (q->len_bytes > g->config.slot_bytes)
        r.status = GSM_ERR_ARG;
      else {
        /* The local buffer keeps only the latest put: relaxed consistency lets a round carry
         * the newest value and skip the ones it overwrote. */
        memcpy(c->data, payload, (size_t)q->len_bytes);
        c->len_bytes = q->len_bytes;
        c->seq++;
        c->put_time_s = now;
        c->has_data = 1;
        r.seq = c->seq;
        s->stats.puts++;
      }
      break;
    case GSM_OP_DROP:
      if (c->producer_id < 0)
        r.status = GSM_ERR_STATE;
      else {
        c->producer_id = -1;
        c->has_data = 0;
        s->stats.drops++;
      }
      break;
    case GSM_OP_CLOSE:
      if (c->producer_id >= 0) s->stats.closed_without_drop++;
      release(c);
      s->stats.connections_open = open_count(s);
      break;
    case GSM_OP_IOCTL:
      if (q->arg == GSM_IOCTL_SET_CONTEXT) {
        const int32_t* ids = (const int32_t*)payload;
        const int n = q->len_bytes / (int)sizeof(int32_t);
        uint64_t mask[GSM_MASK_WORDS] = {0};
        for (int i = 0; i < n && r.status == GSM_OK; i++) {
          if (ids[i] < 0 || ids[i] >= g->config.max_producers)
            r.status = GSM_ERR_ARG;
          else
            gsm_mask_set(mask, ids[i]);
        }
        if (r.status == GSM_OK) {
          memcpy(c->context, mask, sizeof(mask));
          c->is_consumer = 1;
        }
      } else if (!c->is_consumer) {
        r.status = GSM_ERR_STATE;
      } else {
        int32_t* out = (int32_t*)(s->reply + sizeof(gsm_reply));
        for (int id = 0; id < g->config.max_producers; id++)
          if (s->global[id].valid && gsm_mask_has(c->context, id)) out[r.count++] = id;
        r.len_bytes = r.count * (int32_t)sizeof(int32_t);
      }
      break;
    case GSM_OP_GET:
      if (!c->is_consumer)
        r.status = GSM_ERR_STATE;
      else {
        fill_get(g, c, &r, now);
        s->stats.gets++;
      }
      break;
    case GSM_OP_HEARTBEAT:
      break;
    default:
      r.status = GSM_ERR_ARG;
  }
  reply(g, source, &r);
}

/** Receives one request if one is waiting; returns whether it did. */
static int serve_one(gsm_t* g) {
  gsm_service* s = g->service;
  int flag = 0, bytes = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, GSM_TAG_REQUEST, g->node_comm, &flag, &st);
  if (!flag) return 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  if ((size_t)bytes > s->request_cap) {
    free(s->request);
    s->request_cap = (size_t)bytes;
    s->request = (char*)malloc(s->request_cap);
  }
  MPI_Recv(s->request, bytes, MPI_BYTE, st.MPI_SOURCE, GSM_TAG_REQUEST, g->node_comm,
           MPI_STATUS_IGNORE);
  gsm_request q;
  memcpy(&q, s->request, sizeof(q));
  handle_request(g, st.MPI_SOURCE, &q, s->request + sizeof(q), MPI_Wtime());
  return 1;
}

/** The producers whose records this node's consumers want (scatter mode sends only those). */
static void node_interest(const gsm_service* s, uint64_t* mask) {
  memset(mask, 0, sizeof(uint64_t) * GSM_MASK_WORDS);
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++)
    if (s->conns[i].used && s->conns[i].is_consumer)
      for (int w = 0; w < GSM_MASK_WORDS; w++) mask[w] |= s->conns[i].context[w];
}

/** Writes this node's records wanted by `interest` (all when NULL) to out; returns the count. */
static int pack_local(gsm_t* g, const uint64_t* interest, char* out) {
  gsm_service* s = g->service;
  int n = 0;
  for (int i = 0; i < GSM_MAX_CONNECTIONS; i++) {
    const connection* c = &s->conns[i];
    if (!c->used || c->producer_id < 0 || !c->has_data) continue;
    if (interest && !gsm_mask_has(interest, c->producer_id)) continue;
    gsm_record rec;
    memset(&rec, 0, sizeof(rec));
    rec.producer_id = c->producer_id;
    rec.node = g->node;
    rec.len_bytes = c->len_bytes;
    rec.seq = c->seq;
    rec.put_time_s = c->put_time_s;
    char* p = out + (size_t)n * g->record_bytes;
    memcpy(p, &rec, sizeof(rec));
    memcpy(p + sizeof(rec), c->data, (size_t)c->len_bytes);
    n++;
  }
  return n;
}

static int reserve_recv(gsm_service* s, size_t bytes) {
  if (bytes <= s->recv_cap) return GSM_OK;
  free(s->recv_buf);
  s->recv_cap = bytes;
  s->recv_buf = (char*)malloc(bytes);
  return s->recv_buf ? GSM_OK : GSM_ERR_FULL;
}

/** Replaces this node's global buffer with the records received in a round: a producer not
 *  among them (dropped, closed or failed on its node) leaves the global buffer. */
static void install(gsm_t* g, const char* records, int n, double now) {
  gsm_service* s = g->service;
  const int p = g->config.max_producers;
  char* seen = (char*)calloc((size_t)p, 1);
  for (int i = 0; i < n; i++) {
    const char* r = records + (size_t)i * g->record_bytes;
    gsm_record rec;
    memcpy(&rec, r, sizeof(rec));
    if (rec.producer_id < 0 || rec.producer_id >= p || seen[rec.producer_id]) continue;
    seen[rec.producer_id] = 1;
    global_slot* slot = &s->global[rec.producer_id];
    const int fresh = !slot->valid || slot->record.seq != rec.seq ||
                      slot->record.put_time_s != rec.put_time_s || slot->record.node != rec.node;
    if (fresh) {
      rec.visible_time_s = now;
      const double staleness = now - rec.put_time_s;
      s->stats.new_records++;
      s->stats.staleness_sum_s += staleness;
      if (staleness > s->stats.staleness_max_s) s->stats.staleness_max_s = staleness;
    } else {
      rec.visible_time_s = slot->record.visible_time_s;
    }
    slot->record = rec;
    memcpy(slot->data, r + sizeof(rec), (size_t)rec.len_bytes);
    slot->valid = 1;
  }
  for (int id = 0; id < p; id++)
    if (!seen[id]) s->global[id].valid = 0;
  s->stats.records_received += (uint64_t)n;
  free(seen);
}

/** One propagation round; returns 1 when every service reported done (all stop together). */
static int propagate(gsm_t* g, double due) {
  gsm_service* s = g->service;
  int services;
  MPI_Comm_size(g->service_comm, &services);
  if (services < 1) abort(); /* a communicator holds at least this service */
  /* A copy the MPI calls below cannot change (they might, as far as the compiler knows,
   * through the address MPI_Comm_size took). */
  const size_t nservices = (size_t)services;
  gsm_round_header mine;
  memset(&mine, 0, sizeof(mine));
  mine.done = s->finished_clients == s->clients;
  node_interest(s, mine.interest);
  gsm_round_header* all = (gsm_round_header*)calloc(nservices, sizeof(mine));
  int* counts = (int*)calloc(nservices, sizeof(int));
  int* displs = (int*)calloc(nservices, sizeof(int));
  int total = 0, all_done = 1;
  if (g->config.mode == GSM_MODE_ALLGATHER) {
    mine.records = pack_local(g, NULL, s->send_buf);
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
                  g->service_comm);
    for (int i = 0; i < services; i++) {
      counts[i] = all[i].records * (int)g->record_bytes;
      displs[i] = total;
      total += counts[i];
      all_done &= all[i].done;
    }
    if (reserve_recv(s, (size_t)total + 1) != GSM_OK) abort(); /* out of memory */
    MPI_Allgatherv(s->send_buf, counts[g->node], MPI_BYTE, s->recv_buf, counts, displs, MPI_BYTE,
                   g->service_comm);
    s->stats.bytes_sent += (uint64_t)counts[g->node];
    s->stats.bytes_received += (uint64_t)total;
  } else {
    /* Scatter mode: every service exchanges headers (interest), then sends each service only
     * the records of producers its consumers selected. Every service is a scatter root at
     * once: one all-to-all of the sizes, then one personalised all-to-all of the records
     * (a scatter per root in turn took services rounds of two collectives). */
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
                  g->service_comm);
    for (int i = 0; i < services; i++) all_done &= all[i].done;
    const size_t per_dest = (size_t)GSM_MAX_CONNECTIONS * g->record_bytes;
    char* pack = (char*)malloc(per_dest * nservices + 1);
    int* recv_counts = (int*)calloc(nservices, sizeof(int));
    int* recv_displs = (int*)calloc(nservices, sizeof(int));
    if (!pack || !recv_counts || !recv_displs) abort(); /* out of memory */
    int send_total = 0;
    for (int d = 0; d < services; d++) {
      const int n = pack_local(g, all[d].interest, pack + send_total);
      counts[d] = n * (int)g->record_bytes;
      displs[d] = send_total;
      send_total += counts[d];
    }
    MPI_Alltoall(counts, 1, MPI_INT, recv_counts, 1, MPI_INT, g->service_comm);
    for (int i = 0; i < services; i++) {
      recv_displs[i] = total;
      total += recv_counts[i];
    }
    if (reserve_recv(s, (size_t)total + 1) != GSM_OK) abort(); /* out of memory */
    MPI_Alltoallv(pack, counts, displs, MPI_BYTE, s->recv_buf, recv_counts, recv_displs, MPI_BYTE,
                  g->service_comm);
    free(pack);
    free(recv_counts);
    free(recv_displs);
    s->stats.bytes_sent += (uint64_t)send_total;
    s->stats.bytes_received += (uint64_t)total;
  }
  const double now = MPI_Wtime();
  install(g, s->recv_buf, total / (int)g->record_bytes, now);
  s->stats.propagations++;
  const double took = now - due;
  s->stats.propagation_sum_s += took;
  if (took > s->stats.propagation_max_s) s->stats.propagation_max_s = took;
  free(all);
  free(counts);
  free(displs);
  return all_done;
}

int gsm_service_stats(gsm_t* g, gsm_stats* out) {
  g->service->stats.connections_open = open_count(g->service);
  *out = g->service->stats;
  return GSM_OK;
}

int gsm_service_run(gsm_t* g) {
  if (!g->is_service) return GSM_ERR_STATE;
  gsm_service* s = g->service;
  for (;;) {
    const double now = MPI_Wtime();
    /* Silence is judged before the next request is read, so a client back from a long
     * silence finds its handle expired rather than revived. */
    expire_silent(g, now);
    if (now >= s->next_due_s) {
      /* Requests that came during the last round are answered before the next one (a client
       * waits for its answer, so there is at most one per client): when rounds last longer
       * than the interval, each starts as the last ends, and the clients would otherwise
       * never be served. */
      for (int n = 0; n < s->clients && serve_one(g); n++) {
      }
      const double due = s->next_due_s;
      if (propagate(g, due)) break;
      s->next_due_s = due + g->config.interval_s;
      const double after = MPI_Wtime();
      if (s->next_due_s < after) s->next_due_s = after; /* late: catch up without a burst */
      continue;
    }
    serve_one(g);
  }
  return GSM_OK;
}
