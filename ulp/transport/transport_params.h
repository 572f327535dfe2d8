// SPDX-License-Identifier: Apache-2.0
// The reliable transport's parameters (ulp.*), declared beside TransportConfig: their
// defaults are its members'.
#pragma once

#include <algorithm>

#include "base/params.h"
#include "ulp/transport/transport_config.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

inline const ParamDecls<TransportConfig>& TransportParams() {
  using C = TransportConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Bool("ulp.rdma", &C::rdma,
                  "Reliable transport: move messages above ulp.rdma_threshold by RDMA (false: "
                  "everything in packet mode)")
           .Size("ulp.rdma_threshold", &C::rdma_threshold,
                 "Reliable transport: messages larger than this go by RDMA")
           .Custom(
               "ulp.rdma_chunk", ParamType::kSize,
               "Reliable transport: largest RDMA read chunk (chunks shrink under loss)",
               [](const C& c) { return FormatSize(c.rdma_chunk); },
               [](const ParamSource& p, C& c) {
                 // A chunk above 1 GiB reads as 1 GiB: the reads' lengths are 32-bit.
                 c.rdma_chunk = static_cast<uint32_t>(
                     std::min<uint64_t>(p.SizeBytes("ulp.rdma_chunk"), uint64_t{1} << 30));
                 return Status();
               })
           .Duration("ulp.send_overhead", &C::send_overhead_ps,
                     "Host CPU time of the LAPI/MPI software path per message sent")
           .Duration("ulp.recv_overhead", &C::recv_overhead_ps,
                     "Host CPU time of the LAPI/MPI software path per message delivered")
           .Int("ulp.max_retransmits", &C::max_retransmits, 1, 100000,
                "Reliable transport: timeouts of one packet without an acknowledgement (each sends "
                "a "
                "probe or a copy) after which its destination is unreachable and its messages fail "
                "(the timeout doubles per retry up to 2 ms)")
           .Bool("ulp.eager_rdma", &C::eager_rdma,
                 "Reliable transport: send a message that fits a slot by one RDMA write into the "
                 "receiver's ring for the connection (made on first use, small slots first, "
                 "enlarged when a message needs it)")
           .Size("ulp.eager_small_slot", &C::eager_small_slot,
                 "Eager RDMA: bytes of a small ring slot, 32 bytes of flags included")
           .Range(64, int64_t{1} << 30)
           .Size("ulp.eager_large_slot", &C::eager_large_slot,
                 "Eager RDMA: bytes of a large ring slot (messages up to this go by one write once "
                 "the connection is enlarged)")
           .Range(64, int64_t{1} << 30)
           .Int("ulp.eager_slots", &C::eager_slots, 1, kMaxEagerSlots,
                "Eager RDMA: slots per ring (writes in flight per connection)")
           .Int("ulp.eager_large_slots", &C::eager_large_slots, 0, kMaxEagerSlots,
                "Eager RDMA: slots per ring of large slots (0: ulp.eager_slots): large rings may "
                "keep fewer, the memory being in their slot size")
           .Bool("ulp.eager_release_small", &C::eager_release_small,
                 "Eager RDMA: free and deregister a connection's small ring once it has moved to "
                 "large slots")
           .Duration("ulp.eager_shrink_idle", &C::eager_shrink_idle_ps,
                     "Eager RDMA: a large connection idle this long goes back to small slots (0: "
                     "never)")
           .Int("ulp.eager_redrives", &C::eager_redrives, 0, kEagerAttempts - 1,
                "Eager RDMA: redrives of one ring write after which its message is sent in packet "
                "mode instead (a write the loss keeps from landing whole)");
  return *decls;
}

}  // namespace nicsim::ulp
