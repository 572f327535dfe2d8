/* SPDX-License-Identifier: Apache-2.0 */
/* A C API over the postbox engines for programs started by `nicsim shm-run`: blocking send
 * and receive among the run's processes on one node, with errors instead of hangs on death. */
#ifndef NICSIM_ULP_SHM_SHM_API_H_
#define NICSIM_ULP_SHM_SHM_API_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Success. */
#define NICSIM_SHM_OK 0
/** A bad argument: a rank out of range, a null buffer with a length, a null out-pointer. */
#define NICSIM_SHM_EINVAL (-1)
/** Called before nicsim_shm_init, after nicsim_shm_finalize, or init called twice. */
#define NICSIM_SHM_ENOTINIT (-2)
/** Init: the launcher's environment variables are missing or malformed (not under shm-run). */
#define NICSIM_SHM_EENV (-3)
/** A shared-memory segment could not be made or mapped, or the control segment is wrong. */
#define NICSIM_SHM_ESYS (-4)
/** The peer died (ended without finalizing) and nothing more from it can arrive. */
#define NICSIM_SHM_EPEERDEAD (-5)
/** The peer finalized and nothing more from it can arrive (or it will not receive). */
#define NICSIM_SHM_EPEERDONE (-6)
/** Receive: the next message is longer than the buffer; it stays queued, *len says its size. */
#define NICSIM_SHM_ETRUNC (-7)
/** A peer's segment broke the postbox protocol (see nicsim_shm_last_error). */
#define NICSIM_SHM_EPROTO (-8)
/** Receive from this process itself with nothing sent to itself: it could never complete. */
#define NICSIM_SHM_EDEADLOCK (-9)

/** Receive from whichever process sends first. */
#define NICSIM_SHM_ANY_SOURCE (-1)

/**
 * Joins the run: reads NICSIM_SHM_RANK, NICSIM_SHM_SIZE and NICSIM_SHM_PREFIX (set by
 * `nicsim shm-run`), maps the control segment and marks this process running.
 */
int nicsim_shm_init(void);

/** This process's rank (0 .. size-1), or NICSIM_SHM_ENOTINIT. */
int nicsim_shm_rank(void);

/** Processes in the run, or NICSIM_SHM_ENOTINIT. */
int nicsim_shm_size(void);

/**
 * Sends `len` bytes at `buf` to rank `dest` (itself included) and returns once every byte is
 * in shared memory, so `buf` may be reused. While the receiver's quota or postbox slots are
 * used up it keeps progressing (and receiving, so two processes sending to each other do not
 * deadlock). NICSIM_SHM_EPEERDEAD if `dest` is dead at the call or dies while the send waits;
 * NICSIM_SHM_EPEERDONE likewise if it has finalized.
 */
int nicsim_shm_send(int dest, const void* buf, size_t len);

/**
 * Receives the next message from `src` (or from any rank: NICSIM_SHM_ANY_SOURCE) into `buf`
 * of `cap` bytes; blocks, polling with a short back-off. Messages of one sender arrive in the
 * order sent. On success *len is the message's length and *src_out its sender (either may be
 * null). The liveness rule: a receive fails only when nothing it could accept is queued or
 * can still arrive. From one rank: that rank is dead (NICSIM_SHM_EPEERDEAD) or finalized
 * (NICSIM_SHM_EPEERDONE) and a last look at its segment found nothing more. From any rank:
 * every other rank is dead or finalized and a last look found nothing; then the error is
 * EPEERDEAD naming the lowest dead rank in *src_out if any rank died, else EPEERDONE.
 */
int nicsim_shm_recv(int src, void* buf, size_t cap, size_t* len, int* src_out);

/**
 * Leaves the run: marks this process finalized and unmaps its segments. What it posted
 * stays in shared memory for its receivers; the launcher unlinks the segments at the end.
 */
int nicsim_shm_finalize(void);

/** A short text for an error code ("peer is dead", ...). */
const char* nicsim_shm_strerror(int code);

/** The detail of the last error this process got (which peer, how it ended); "" if none. */
const char* nicsim_shm_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NICSIM_ULP_SHM_SHM_API_H_ */
