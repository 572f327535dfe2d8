/* SPDX-License-Identifier: Apache-2.0 */
/* What gsm's client and service share: the gsm_t state, the request/reply wire layout on a
 * node communicator, and the record layout the services propagate. */
#ifndef NICSIM_ULP_GSM_INTERNAL_H_
#define NICSIM_ULP_GSM_INTERNAL_H_

#include "gsm.h"

#include <stddef.h>

_Static_assert(sizeof(gsm_record) == 40, "gsm_record is 40 bytes on the wire");

/** Tags on the node communicator: client -> service requests, service -> client replies. */
#define GSM_TAG_REQUEST 7101
#define GSM_TAG_REPLY 7102

/** Request opcodes. */
enum gsm_op {
  GSM_OP_OPEN = 1,
  GSM_OP_ADD,
  GSM_OP_PUT,
  GSM_OP_DROP,
  GSM_OP_CLOSE,
  GSM_OP_IOCTL,
  GSM_OP_GET,
  GSM_OP_HEARTBEAT,
  GSM_OP_STATS,
  GSM_OP_FINI
};

/** A request's header; a payload (put data, context ids) follows it. */
typedef struct gsm_request {
  int32_t op;
  int32_t handle;
  int32_t arg;
  int32_t len_bytes; /**< payload bytes after the header */
} gsm_request;
_Static_assert(sizeof(gsm_request) == 16, "gsm_request is 16 bytes");

/** A reply's header; a payload (records, ids, stats) follows it. */
typedef struct gsm_reply {
  int32_t status;
  int32_t value;
  int32_t count;
  int32_t len_bytes;
  uint64_t seq;
} gsm_reply;
_Static_assert(sizeof(gsm_reply) == 24, "gsm_reply is 24 bytes");

/** What each service tells the others at the start of a propagation round. */
typedef struct gsm_round_header {
  int32_t records;                   /**< records this service contributes (allgather mode) */
  int32_t done;                      /**< 1 when every client of the node has finalized */
  uint64_t interest[GSM_MASK_WORDS]; /**< producers the node's consumers select (scatter mode) */
} gsm_round_header;
_Static_assert(sizeof(gsm_round_header) == 8 + 8 * GSM_MASK_WORDS, "no padding");

/** The service's state (service ranks only). */
typedef struct gsm_service gsm_service;

struct gsm {
  gsm_config config;
  MPI_Comm node_comm;    /**< the node's ranks; the service is rank 0 of it */
  MPI_Comm service_comm; /**< the services (MPI_COMM_NULL on clients) */
  MPI_Comm client_comm;  /**< the clients (MPI_COMM_NULL on services) */
  int rank;              /**< in the comm given to gsm_init */
  int node;
  int is_service;
  size_t record_bytes; /**< sizeof(gsm_record) + slot_bytes: one propagated record */
  char* reply_buf;     /**< clients: room for the largest reply */
  size_t reply_cap;
  gsm_service* service;
};

/** Service entry points (service.c). */
int gsm_service_create(gsm_t* g);
void gsm_service_destroy(gsm_t* g);
int gsm_service_stats(gsm_t* g, gsm_stats* out);

static inline int gsm_mask_has(const uint64_t* mask, int id) {
  return (int)((mask[id / 64] >> (id % 64)) & 1u);
}
static inline void gsm_mask_set(uint64_t* mask, int id) {
  mask[id / 64] |= (uint64_t)1 << (id % 64);
}

#endif /* NICSIM_ULP_GSM_INTERNAL_H_ */
