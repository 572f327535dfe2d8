// SPDX-License-Identifier: Apache-2.0
// The time each collective of this layer needs at link rate: its algorithm's steps, in the
// order the algorithm imposes, each taking the bytes it moves over its busiest node link (or
// through its busiest adapter's DMA engine, which serves both directions) plus one crossing
// of the fabric, the fixed adapter costs and the host software time of one message. A
// measured collective can be read against it (mpi_collectives prints both): what it takes
// beyond is queueing, protocol and software time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {

/** What a step's time is made of. */
struct LinkModel {
  /** Serialisation time of a byte on one link. */
  double ps_per_byte = 0;
  /** Time of a byte through an adapter's DMA engine, one engine for what the node sends and
   *  what it receives (0: no bound). */
  double dma_ps_per_byte = 0;
  /** One crossing of the fabric: adapter to switch to adapter. */
  uint64_t crossing_ps = 0;
  /** The host software time a message costs its sender and its receiver (the transport's
   *  send and receive overheads), on every step's way. */
  uint64_t message_ps = 0;
  /** What a message costs in the adapters on every step's way, whatever its size: the
   *  doorbell, reading its send slot and writing its receive frame (a DMA latency each), and
   *  the poll that sees it. */
  uint64_t adapter_ps = 0;
  /** Messages between ranks of one node go through its adapter (looped back: its DMA engine
   *  and fixed costs, not its link); false: through shared memory, taken as free. */
  bool intranode_through_adapter = false;
  uint32_t nodes = 1;
  /** Links per node: a node's messages stripe over them. */
  uint32_t adapters_per_node = 1;
};

enum class CollectiveKind : uint8_t { kBarrier, kBcast, kAllreduce, kAllgather, kAlltoall };

/**
 * The link-rate floor, in picoseconds, of one call of `kind` on `ranks` ranks (rank r on node
 * r % nodes, as an MPI job places them) with `bytes` per rank (bcast and allreduce: the
 * message; allgather and alltoall: one block), rooted at rank 0, with the algorithm `config`
 * selects for an int sum; nullopt when the collectives do not go point to point (multicast,
 * chained, half RDMA). A step's messages between ranks of one node cross no link
 * (LinkModel::intranode_through_adapter says what they cost).
 */
std::optional<uint64_t> CollectiveFloorPs(CollectiveKind kind, size_t bytes, int ranks,
                                          const LinkModel& link, const MpiConfig& config);

/**
 * One message of `bytes` from one node to another and an answer of `answer_bytes` back, on an
 * idle fabric, each timed as a step is above: the least a round trip between two nodes takes.
 */
uint64_t RoundTripFloorPs(const LinkModel& link, uint64_t bytes, uint64_t answer_bytes);

}  // namespace nicsim::mpi
