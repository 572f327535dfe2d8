// SPDX-License-Identifier: Apache-2.0
// How a rank's MPI layer moves its messages: the protocols and transports its configuration
// chooses (mpi.* parameters, sim/config; mpi_params.h declares them).
#pragma once

#include <cstdint>

#include "ulp/pushpull/config.h"

namespace nicsim::mpi {

/** How Bcast and Barrier move their messages. */
enum class CollectiveTransport : uint8_t {
  /** Point to point: a binomial tree (Bcast), a dissemination barrier. */
  kPointToPoint,
  /** Broadcast RDMA to a multicast group of the communicator, acknowledged by each member
   *  (ulp/transport/rdma_multicast.h); the barrier gathers to rank 0, which releases by multicast.
   */
  kMulticast,
  /** The same group, but a message goes down a tree of the members' adapters: each member's
   *  adapter forwards it to its children as it lands (conditional RDMA), without the host. */
  kChained,
};

/** How Reduce and Allreduce move each child's contribution to its parent in the tree. */
enum class ReduceTransport : uint8_t {
  /** Point to point: the child sends, the parent receives the whole message, then combines. */
  kPointToPoint,
  /** Half RDMA (ulp/transport/fifo_reduction.h): the child's adapter reads the contribution from
   * its registered buffer, the packets land in the parent's receive FIFO and the parent's CPU
   *  combines each as it arrives. */
  kHalfRdma,
};

/** How a rank's messages to ranks of its own node travel. */
enum class IntranodeTransport : uint8_t {
  /** Like any other: through the transport and the adapter, which loops them back. */
  kAdapter,
  /** Through shared memory: the postbox engines of reference 000 (ulp/mpi/postbox_path.h). */
  kPostbox,
  /** Through shared memory: the push-pull engines of reference 003 (ulp/mpi/pushpull_path.h). */
  kPushPull,
};

/** How a rank's messages to ranks of other nodes travel. */
enum class InternodeTransport : uint8_t {
  /** Eager up to eager_limit, rendezvous above it (request, clear to send, data). */
  kTransport,
  /** Push-Pull (reference 003, ulp/mpi/push_pull_protocol.h): the first pushpull.btp1_bytes go with
   *  the request, the next pushpull.btp2_bytes right behind it without waiting, the rest once
   *  the receiver has matched and acknowledged (the transport pulls it by RDMA read). */
  kPushPull,
};

struct MpiConfig {
  /** Messages above this many bytes use the rendezvous protocol. */
  uint64_t eager_limit = 64 * 1024;
  CollectiveTransport bcast = CollectiveTransport::kPointToPoint;
  /** Multicast: bytes of one group message (a landing slot); larger broadcasts go in pieces. */
  uint64_t mcast_slot_bytes = 64 * 1024;
  /** Multicast: smaller broadcasts go over the tree (the root takes in an acknowledgement
   *  from every member per group message, which costs more than a few tree steps). */
  uint64_t mcast_min_bytes = 8 * 1024;
  /** Chained: children per member in the forwarding tree. */
  uint32_t chain_radix = 2;
  ReduceTransport reduce = ReduceTransport::kPointToPoint;
  /** Half RDMA: smaller reductions go point to point (the rendezvous costs a round trip and
   *  a done notice per contribution). Larger than 16 MiB (one contiguous registered area)
   *  always go point to point. */
  uint64_t half_rdma_min_bytes = 32 * 1024;
  /** Messages to other nodes: eager/rendezvous or push-pull (then `pushpull` says how much
   *  is pushed; eager_limit is not used for them). */
  InternodeTransport internode = InternodeTransport::kTransport;
  /** Push-pull's mode and push sizes (its other fields are the shared-memory engine's). */
  ulp::pushpull::Params pushpull;
  /** Messages between ranks of one node: through the adapter or shared memory. */
  IntranodeTransport intranode = IntranodeTransport::kAdapter;
  /** Host CPU time per byte of a copy of message data (the inverse of the host's copy
   *  bandwidth); 0: copies are free. */
  double copy_ps_per_byte = 0;
  /**
   * Most bytes of staging memory the rendezvous messages announced and not yet pulled may
   * hold together: they wait for receives that may wait for messages queued behind them, so
   * the rest of the rank's memory stays for those. A rendezvous message beyond it waits in
   * this layer and is asked for by request to send (no staging held while it waits).
   */
  uint64_t announced_staging_bytes = UINT64_MAX;
};

}  // namespace nicsim::mpi
