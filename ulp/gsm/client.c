/* SPDX-License-Identifier: Apache-2.0 */
/* gsm's client side: setup and teardown of the node and service communicators, and the
 * producer/consumer calls, each one request to the node's service and one reply. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char* gsm_strerror(int code) {
  switch (code) {
    case GSM_OK:
      return "ok";
    case GSM_ERR_ARG:
      return "bad argument";
    case GSM_ERR_EXPIRED:
      return "handle expired (closed or failed)";
    case GSM_ERR_BUSY:
      return "producer id already registered on this node";
    case GSM_ERR_STATE:
      return "call not valid in this state";
    case GSM_ERR_FULL:
      return "too many connections";
    case GSM_ERR_MPI:
      return "MPI call failed";
    default:
      return "unknown";
  }
}

static int check_config(const gsm_config* c, int comm_size) {
  if (c->num_nodes < 1 || c->num_nodes > comm_size) return GSM_ERR_ARG;
  if (!(c->interval_s > 0)) return GSM_ERR_ARG;
  if (c->max_producers < 1 || c->max_producers > GSM_MAX_PRODUCERS) return GSM_ERR_ARG;
  if (c->slot_bytes < 0 || c->slot_bytes > (1 << 20)) return GSM_ERR_ARG;
  if (c->mode != GSM_MODE_ALLGATHER && c->mode != GSM_MODE_SCATTER) return GSM_ERR_ARG;
  if (c->failure_intervals < 1) return GSM_ERR_ARG;
  return GSM_OK;
}

int gsm_init(MPI_Comm comm, const gsm_config* config, gsm_t** out) {
  int rank, size;
  if (!config || !out) return GSM_ERR_ARG;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return GSM_ERR_MPI;
  const int bad = check_config(config, size);
  if (bad != GSM_OK) return bad;
  gsm_t* g = (gsm_t*)calloc(1, sizeof(gsm_t));
  if (!g) return GSM_ERR_FULL;
  g->config = *config;
  g->rank = rank;
  /* Nodes follow nicsim mpirun's placement (rank r on node r % nodes), so each service runs
   * on its node's lowest rank and every connection stays inside one node. */
  g->node = rank % config->num_nodes;
  g->is_service = rank < config->num_nodes;
  g->record_bytes = sizeof(gsm_record) + (size_t)config->slot_bytes;
  int rc = MPI_Comm_split(comm, g->node, rank, &g->node_comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_split(comm, g->is_service ? 0 : MPI_UNDEFINED, rank, &g->service_comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_split(comm, g->is_service ? MPI_UNDEFINED : 0, rank, &g->client_comm);
  if (rc != MPI_SUCCESS) {
    free(g);
    return GSM_ERR_MPI;
  }
  if (g->is_service) {
    rc = gsm_service_create(g);
    if (rc != GSM_OK) return rc;
  } else {
    g->reply_cap = sizeof(gsm_reply) + sizeof(gsm_stats) +
                   (size_t)config->max_producers * (g->record_bytes + sizeof(int32_t));
    g->reply_buf = (char*)malloc(g->reply_cap);
    if (!g->reply_buf) return GSM_ERR_FULL;
  }
  *out = g;
  return GSM_OK;
}

int gsm_is_service(const gsm_t* g) { return g->is_service; }
int gsm_node(const gsm_t* g) { return g->node; }
MPI_Comm gsm_client_comm(const gsm_t* g) { return g->client_comm; }

/** One request to the node's service (node rank 0) and, unless one_way, its reply. */
static int call(gsm_t* g, int op, gsm_handle h, int arg, const void* payload, int len,
                gsm_reply** reply, int one_way) {
  if (g->is_service) return GSM_ERR_STATE;
  const size_t total = sizeof(gsm_request) + (size_t)len;
  char stack[256];
  char* msg = total <= sizeof(stack) ? stack : (char*)malloc(total);
  if (!msg) return GSM_ERR_FULL;
  gsm_request req = {op, h, arg, len};
  memcpy(msg, &req, sizeof(req));
  if (len > 0) memcpy(msg + sizeof(req), payload, (size_t)len);
  int rc = MPI_Send(msg, (int)total, MPI_BYTE, 0, GSM_TAG_REQUEST, g->node_comm);
  if (msg != stack) free(msg);
  if (rc != MPI_SUCCESS) return GSM_ERR_MPI;
  if (one_way) return GSM_OK;
  rc = MPI_Recv(g->reply_buf, (int)g->reply_cap, MPI_BYTE, 0, GSM_TAG_REPLY, g->node_comm,
                MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return GSM_ERR_MPI;
  *reply = (gsm_reply*)g->reply_buf;
  return (*reply)->status;
}

int gsm_open(gsm_t* g, gsm_handle* h) {
  gsm_reply* r;
  const int rc = call(g, GSM_OP_OPEN, 0, 0, NULL, 0, &r, 0);
  if (rc == GSM_OK) *h = r->value;
  return rc;
}

int gsm_add(gsm_t* g, gsm_handle h, int producer_id) {
  gsm_reply* r;
  return call(g, GSM_OP_ADD, h, producer_id, NULL, 0, &r, 0);
}

int gsm_put(gsm_t* g, gsm_handle h, const void* data, int len_bytes, uint64_t* seq) {
  gsm_reply* r;
  if (len_bytes < 0 || len_bytes > g->config.slot_bytes) return GSM_ERR_ARG;
  const int rc = call(g, GSM_OP_PUT, h, 0, data, len_bytes, &r, 0);
  if (rc == GSM_OK && seq) *seq = r->seq;
  return rc;
}

int gsm_drop(gsm_t* g, gsm_handle h) {
  gsm_reply* r;
  return call(g, GSM_OP_DROP, h, 0, NULL, 0, &r, 0);
}

int gsm_close(gsm_t* g, gsm_handle h) {
  gsm_reply* r;
  return call(g, GSM_OP_CLOSE, h, 0, NULL, 0, &r, 0);
}

int gsm_ioctl(gsm_t* g, gsm_handle h, int op, int* ids, int* n) {
  gsm_reply* r;
  if (!n || *n < 0 || (*n > 0 && !ids)) return GSM_ERR_ARG;
  if (op == GSM_IOCTL_SET_CONTEXT) {
    int32_t wire[GSM_MAX_PRODUCERS];
    if (*n > GSM_MAX_PRODUCERS) return GSM_ERR_ARG;
    for (int i = 0; i < *n; i++) wire[i] = ids[i];
    return call(g, GSM_OP_IOCTL, h, op, wire, *n * (int)sizeof(int32_t), &r, 0);
  }
  if (op != GSM_IOCTL_REFRESH) return GSM_ERR_ARG;
  const int rc = call(g, GSM_OP_IOCTL, h, op, NULL, 0, &r, 0);
  if (rc != GSM_OK) return rc;
  const int32_t* got = (const int32_t*)(g->reply_buf + sizeof(gsm_reply));
  const int count = r->count < *n ? r->count : *n;
  for (int i = 0; i < count; i++) ids[i] = got[i];
  *n = r->count;
  return GSM_OK;
}

int gsm_get(gsm_t* g, gsm_handle h, gsm_record* records, void* data, int* n) {
  gsm_reply* r;
  if (!n || *n < 0) return GSM_ERR_ARG;
  const int rc = call(g, GSM_OP_GET, h, 0, NULL, 0, &r, 0);
  if (rc != GSM_OK) return rc;
  const char* p = g->reply_buf + sizeof(gsm_reply);
  const int count = r->count < *n ? r->count : *n;
  for (int i = 0; i < count; i++, p += g->record_bytes) {
    memcpy(&records[i], p, sizeof(gsm_record));
    if (data)
      memcpy((char*)data + (size_t)i * (size_t)g->config.slot_bytes, p + sizeof(gsm_record),
             (size_t)records[i].len_bytes);
  }
  *n = count;
  return GSM_OK;
}

int gsm_heartbeat(gsm_t* g, gsm_handle h) {
  gsm_reply* r;
  return call(g, GSM_OP_HEARTBEAT, h, 0, NULL, 0, &r, 0);
}

int gsm_stats_get(gsm_t* g, gsm_stats* out) {
  gsm_reply* r;
  if (g->is_service) return gsm_service_stats(g, out);
  const int rc = call(g, GSM_OP_STATS, 0, 0, NULL, 0, &r, 0);
  if (rc == GSM_OK) memcpy(out, g->reply_buf + sizeof(gsm_reply), sizeof(*out));
  return rc;
}

int gsm_finalize(gsm_t* g) {
  int rc = GSM_OK;
  if (!g->is_service) {
    gsm_reply* r;
    rc = call(g, GSM_OP_FINI, 0, 0, NULL, 0, &r, 1);
  } else {
    gsm_service_destroy(g);
  }
  MPI_Comm_free(&g->node_comm);
  if (g->service_comm != MPI_COMM_NULL) MPI_Comm_free(&g->service_comm);
  if (g->client_comm != MPI_COMM_NULL) MPI_Comm_free(&g->client_comm);
  free(g->reply_buf);
  free(g);
  return rc;
}
