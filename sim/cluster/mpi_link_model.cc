// SPDX-License-Identifier: Apache-2.0
// An MPI job's message costs on its cluster (see sim/cluster/mpi_link_model.h).
#include "sim/cluster/mpi_link_model.h"

#include <algorithm>

#include "ulp/transport/wire.h"

namespace nicsim::sim {

mpi::LinkModel LinkModelOf(const MpiJobConfig& job) {
  const ClusterConfig& c = job.cluster;
  mpi::LinkModel link;
  link.ps_per_byte = c.fabric.link_ps_per_byte;
  link.dma_ps_per_byte = c.timing.dma_ps_per_byte;
  link.crossing_ps = 2 * c.fabric.link_delay_ps + c.fabric.hop_latency_ps;
  link.message_ps = job.transport.send_overhead_ps + job.transport.recv_overhead_ps;
  link.adapter_ps = c.timing.mmio_latency_ps + 2 * c.timing.dma_latency_ps + c.poll_latency_ps;
  link.intranode_through_adapter = job.mpi.intranode == mpi::IntranodeTransport::kAdapter;
  link.nodes = c.nodes;
  link.adapters_per_node = c.adapters_per_node;
  return link;
}

uint64_t FirstTimeoutPs(const MpiJobConfig& job, uint32_t packet_bytes) {
  const uint64_t round_trip =
      mpi::RoundTripFloorPs(LinkModelOf(job), packet_bytes, sizeof(ulp::Header));
  return std::max(job.transport.rto_min_ps, 3 * round_trip);
}

}  // namespace nicsim::sim
