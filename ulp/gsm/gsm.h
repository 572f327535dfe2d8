/* SPDX-License-Identifier: Apache-2.0 */
/* gsm: a loosely coupled global shared memory service over the MPI C API (reference 004).
 * One service rank per node; producers and consumers talk only to their node's service. */
#ifndef NICSIM_ULP_GSM_GSM_H_
#define NICSIM_ULP_GSM_GSM_H_

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Limits of one service (device limits in one place). */
#define GSM_MAX_PRODUCERS 1024  /**< producer ids are 0..max_producers-1, at most this many */
#define GSM_MAX_CONNECTIONS 256 /**< open connections per service */
#define GSM_MASK_WORDS (GSM_MAX_PRODUCERS / 64)

/** Return codes: 0 or a negative error. */
enum {
  GSM_OK = 0,
  GSM_ERR_ARG = -1,     /**< a bad argument (id out of range, data larger than a slot) */
  GSM_ERR_EXPIRED = -2, /**< the handle is unknown: closed, or declared failed by the service */
  GSM_ERR_BUSY = -3,    /**< the producer id is already registered on this node */
  GSM_ERR_STATE = -4,   /**< put before add, get before a context, or a call on a service rank */
  GSM_ERR_FULL = -5,    /**< GSM_MAX_CONNECTIONS connections are open */
  GSM_ERR_MPI = -6      /**< an MPI call failed */
};

/** How local buffers reach the other services. */
enum {
  GSM_MODE_ALLGATHER = 0, /**< every service receives every producer's record */
  GSM_MODE_SCATTER = 1    /**< each service scatters to each other only what its consumers select */
};

/** What gsm_ioctl does. */
enum {
  GSM_IOCTL_SET_CONTEXT = 1, /**< ids[0..n) become the consumer's producers */
  GSM_IOCTL_REFRESH = 2      /**< ids[] receives the context's producers now in the global buffer */
};

/** The service's parameters; gsm_init checks them and names a bad one. */
typedef struct gsm_config {
  int num_nodes;         /**< rank r belongs to node r % num_nodes; ranks 0..num_nodes-1 serve */
  double interval_s;     /**< propagation period, in MPI_Wtime seconds (simulated under nicsim) */
  int max_producers;     /**< global producer id space, 1..GSM_MAX_PRODUCERS */
  int slot_bytes;        /**< largest put, in bytes */
  int mode;              /**< GSM_MODE_ALLGATHER or GSM_MODE_SCATTER */
  int failure_intervals; /**< K: a connection silent for more than K intervals is failed */
} gsm_config;

/** One producer's record as a consumer gets it. */
typedef struct gsm_record {
  int32_t producer_id;
  int32_t node; /**< the node whose service holds the producer */
  int32_t len_bytes;
  int32_t reserved;
  uint64_t seq;          /**< puts since the producer was added (1 = first) */
  double put_time_s;     /**< MPI_Wtime when the producer's service stored the put */
  double visible_time_s; /**< MPI_Wtime when this record reached the reading service */
} gsm_record;

/** Counters of one service, read by any of its clients with gsm_stats. */
typedef struct gsm_stats {
  uint64_t propagations;   /**< propagation rounds run */
  uint64_t bytes_sent;     /**< record bytes this service contributed to propagations */
  uint64_t bytes_received; /**< record bytes this service received in propagations */
  uint64_t records_received;
  uint64_t new_records;     /**< records carrying a put not seen before */
  double staleness_max_s;   /**< put stored at its service -> visible here, max over new records */
  double staleness_sum_s;   /**< sum over new_records (mean = sum / new_records) */
  double propagation_max_s; /**< from a round's due time to the end of its collectives, max */
  double propagation_sum_s;
  uint64_t puts, gets, adds, drops;
  uint64_t failures_detected;   /**< connections failed for silence (K intervals) */
  uint64_t closed_without_drop; /**< producers cleaned up because they closed still registered */
  uint64_t connections_open;    /**< now */
  uint64_t connections_max;     /**< most open at once */
  double get_age_max_s;         /**< get time - put time, max over records returned */
  double interval_s;            /**< the configured interval, for the reader's bounds */
} gsm_stats;

typedef struct gsm gsm_t;
typedef int32_t gsm_handle;

/** Collective over comm: splits it into nodes and the service collective. */
int gsm_init(MPI_Comm comm, const gsm_config* config, gsm_t** out);
/** 1 on the ranks that run a node's service (ranks 0..num_nodes-1 of comm). */
int gsm_is_service(const gsm_t* g);
/** This rank's node id. */
int gsm_node(const gsm_t* g);
/** A communicator of the client ranks only (MPI_COMM_NULL on service ranks); gsm owns it. */
MPI_Comm gsm_client_comm(const gsm_t* g);
/** Service ranks: serve the node until every client of every node has called gsm_finalize. */
int gsm_service_run(gsm_t* g);
/** Every rank, before MPI_Finalize: a client tells its service it is done; frees gsm. */
int gsm_finalize(gsm_t* g);

/** Connects to the node's service; the handle names the connection in later calls. */
int gsm_open(gsm_t* g, gsm_handle* h);
/** Producer: registers producer_id (global, unique over nodes: the program's job). */
int gsm_add(gsm_t* g, gsm_handle h, int producer_id);
/** Producer: copies data into the node's local buffer; *seq (may be NULL) gets its number. */
int gsm_put(gsm_t* g, gsm_handle h, const void* data, int len_bytes, uint64_t* seq);
/** Producer: unregisters; its record leaves the global buffer at the next propagation. */
int gsm_drop(gsm_t* g, gsm_handle h);
/** Either side: closes the connection (a producer still registered is cleaned up). */
int gsm_close(gsm_t* g, gsm_handle h);
/** Consumer: sets the context (GSM_IOCTL_SET_CONTEXT) or lists present producers
 *  (GSM_IOCTL_REFRESH, *n in: capacity of ids, out: count). */
int gsm_ioctl(gsm_t* g, gsm_handle h, int op, int* ids, int* n);
/** Consumer: the context's producers in the global buffer as of the last propagation.
 *  records[i]'s data goes to data + i * slot_bytes; *n in: capacity, out: count. */
int gsm_get(gsm_t* g, gsm_handle h, gsm_record* records, void* data, int* n);
/** Tells the service the connection is alive (every call does). */
int gsm_heartbeat(gsm_t* g, gsm_handle h);
/** The node's service counters (a service rank reads its own). */
int gsm_stats_get(gsm_t* g, gsm_stats* out);
/** A name for a return code. */
const char* gsm_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif /* NICSIM_ULP_GSM_GSM_H_ */
