// SPDX-License-Identifier: Apache-2.0
// An MPI job's parameters, declared beside MpiJobConfig: its ranks and, included, those the
// reliable transport and the MPI layer declare. The cluster's are ClusterParams().
#pragma once

#include "base/params.h"
#include "sim/cluster/mpi_job.h"
#include "ulp/mpi/mpi_params.h"
#include "ulp/postbox/params.h"
#include "ulp/pushpull/params.h"
#include "ulp/transport/transport_params.h"

namespace nicsim::sim {

inline const ParamDecls<MpiJobConfig>& MpiJobParams() {
  using C = MpiJobConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Include(&C::transport, ulp::TransportParams())
           .RatePsPerByteOrOff(
               "host.copy_bandwidth", &C::copy_ps_per_byte,
               "MPI workloads: the host CPU's memcpy bandwidth for message data; each copy (MPI "
               "packing, staging, unpacking; the transport's copy out of an RDMA landing area) "
               "takes bytes / this on the CPU that makes it, which zero copy (mpi.zero_copy, "
               "AllocMem buffers) avoids. A 2000s POWER node copies about 2-4GB/s per thread "
               "(single-thread STREAM Copy of the era, an estimate): bench/run mpi_zero_copy uses "
               "3GB/s. 0 = copies free (as before)")
           .Int("mpi.ranks", &C::ranks, 1, 4096,
                "MPI workloads: ranks (rank r on node r % nodes, one window per rank on each "
                "adapter "
                "of its node)")
           .Enum(
               "mpi.scheduler", &C::scheduler,
               {{RankSchedulerKind::kContexts, "contexts"},
                {RankSchedulerKind::kThreads, "threads"}},
               "MPI workloads: how rank programs run: contexts (user-level contexts on 256 KiB "
               "stacks that cost only the pages touched; the faster) or threads (an OS thread per "
               "rank); results are the same")
           .Include(&C::mpi, mpi::MpiParams())
           .Duration("host.cache_line_transfer", &C::cache_line_transfer_ps,
                     "MPI workloads, mpi.intranode=postbox or pushpull: from a store on one CPU of "
                     "a node until "
                     "another CPU polling that line sees it (a cache-line transfer between the "
                     "node's processors); a rank sees a posting or an acknowledgement this long "
                     "after the copy that made it")
           .Include(&C::postbox, ulp::postbox::PostboxParams())
           .Include(&C::pushpull, ulp::pushpull::PushPullParams());
  return *decls;
}

}  // namespace nicsim::sim
