// SPDX-License-Identifier: Apache-2.0
// The MPI layer's parameters, declared beside MpiConfig: their defaults are its members'.
#pragma once

#include "base/params.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {

inline const ParamDecls<MpiConfig>& MpiParams() {
  using C = MpiConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Size("mpi.eager_limit", &C::eager_limit,
                  "MPI: messages above this size use the rendezvous protocol")
           .Enum("mpi.bcast", &C::bcast,
                 {{CollectiveTransport::kPointToPoint, "point_to_point"},
                  {CollectiveTransport::kMulticast, "multicast"},
                  {CollectiveTransport::kChained, "chained"}},
                 "MPI: Bcast and Barrier over point to point (binomial tree, dissemination), over "
                 "broadcast RDMA to a multicast group with unicast acknowledgements and selective "
                 "retry, or over the same group with each message forwarded down a tree by the "
                 "members' adapters as it lands (conditional RDMA)")
           .Size(
               "mpi.mcast_slot_bytes", &C::mcast_slot_bytes,
               "MPI, mpi.bcast=multicast or chained: bytes of one group message (each member keeps "
               "four such landing slots); larger broadcasts go in pieces")
           .Size(
               "mpi.mcast_min_bytes", &C::mcast_min_bytes,
               "MPI, mpi.bcast=multicast or chained: broadcasts of fewer bytes go over the "
               "binomial "
               "tree (a group message costs the root one acknowledgement per member); the barrier "
               "always uses the group")
           .Int("mpi.chain_radix", &C::chain_radix, 1, 64,
                "MPI, mpi.bcast=chained: children per member in the tree of adapters a group "
                "message goes down")
           .Enum(
               "mpi.reduce", &C::reduce,
               {{ReduceTransport::kPointToPoint, "point_to_point"},
                {ReduceTransport::kHalfRdma, "half_rdma"}},
               "MPI: Reduce and Allreduce move each child's contribution to its tree parent point "
               "to point, or by half RDMA: the child's adapter reads it from its registered "
               "buffer, the packets land in the parent's receive FIFO and the parent's CPU "
               "combines each as it arrives (built-in ops only; others stay point to point)")
           .Size(
               "mpi.half_rdma_min_bytes", &C::half_rdma_min_bytes,
               "MPI, mpi.reduce=half_rdma: reductions of fewer bytes go point to point (each "
               "contribution costs a clear-to-send and a done notice); above 16MiB they always do")
           .Enum("mpi.internode", &C::internode,
                 {{InternodeTransport::kTransport, "transport"},
                  {InternodeTransport::kPushPull, "pushpull"}},
                 "MPI: messages to ranks of other nodes go eager up to mpi.eager_limit and by "
                 "rendezvous above it, or by push-pull (reference 003): the first "
                 "pushpull.btp1_bytes travel with the request, the next pushpull.btp2_bytes right "
                 "behind it without waiting, the rest once the receiver has matched and "
                 "acknowledged (pulled by RDMA read); pushpull.mode push_all and push_zero compare")
           .Enum("mpi.intranode", &C::intranode,
                 {{IntranodeTransport::kAdapter, "adapter"},
                  {IntranodeTransport::kPostbox, "postbox"},
                  {IntranodeTransport::kPushPull, "pushpull"}},
                 "MPI: messages between ranks of one node (mpi.ranks > nodes) go through the "
                 "adapter, "
                 "which loops them back, or through shared memory in the node's host memory: the "
                 "postbox protocol of reference 000 (postbox.*) or the push-pull protocol of "
                 "reference 003 (pushpull.*: pushes copied through a ring, the rest pulled in one "
                 "copy), with each copy at host.copy_bandwidth and host.cache_line_transfer before "
                 "the other CPU sees a write");
  return *decls;
}

}  // namespace nicsim::mpi
