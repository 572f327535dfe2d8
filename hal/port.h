// SPDX-License-Identifier: Apache-2.0
// The window a reliable transport sends and receives through, and the rCxts of that window.
// The endpoint behind it is looked up afresh on every call: an adapter recovery reopens the
// window with a new endpoint, and a closed window makes sends vanish like lost packets.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "base/status.h"
#include "driver/rcxt_pool.h"
#include "hal/endpoint.h"
#include "hal/peer.h"

namespace nicsim::hal {

/** Where a packet given to Port::Send waits: its endpoint and its place among that
 *  endpoint's sends (0: not accepted). */
struct SendTicket {
  uint64_t endpoint = 0;
  uint64_t place = 0;
};

class Port {
 public:
  /** The window's endpoint now; null when the window is not open. */
  using EndpointFn = std::function<Endpoint*()>;
  /** The pool of the window's adapter now. */
  using RcxtPoolFn = std::function<driver::RcxtPool*()>;
  /** Every frame the window receives: packets and RDMA completion records. */
  using ReceiveFn = std::function<void(const abi::RecvFrameHeader&, const uint8_t* payload)>;

  /** `payload_cap`: the largest payload the link under the window carries in one frame. */
  Port(Peer self, EndpointFn endpoint, RcxtPoolFn rcxts, uint32_t payload_cap = UINT32_MAX)
      : self_(self),
        endpoint_(std::move(endpoint)),
        rcxts_(std::move(rcxts)),
        payload_cap_(payload_cap) {}

  Peer self() const { return self_; }
  /** Largest packet-mode payload. */
  uint32_t max_payload() const;
  /** Queues a packet-mode packet (copied); it leaves when the send FIFO has room. */
  SendTicket Send(Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word);
  /** True once the packet of `ticket` has left through the adapter (its send slot finished
   *  with), and when there is nothing left to wait for: never accepted, or its endpoint gone. */
  bool Transmitted(const SendTicket& ticket) const;
  /** Queues an RDMA request behind earlier sends. */
  void Post(abi::SlotType type, Peer dest, const abi::RdmaRequest& request, uint32_t ulp_word);
  void OnReceive(ReceiveFn fn);
  /**
   * Runs `fn` before every frame delivered to the receiver set later by OnReceive: an MPI job
   * notes which rank's state the frame may change. Set it before the transport attaches.
   */
  void OnActivity(std::function<void()> fn) { on_activity_ = std::move(fn); }
  /** An rCxt of this window (from the driver's pool). */
  Result<uint32_t> AcquireRcxt();
  /** An rCxt of a multicast group (abi::kRcxtGroupKey): the pool's next, or index `index`
   *  (the one the other members hold) if that is free. */
  Result<uint32_t> AcquireGroupRcxt(std::optional<uint32_t> index);
  void ReleaseRcxt(uint32_t ref);
  /** rCxt `ref`'s record as the adapter holds it now (read from adapter memory). */
  abi::RcxtRecord ReadRcxt(uint32_t ref);
  /** One of the adapter's conditional queues (shared by its windows), for this window. */
  Result<uint32_t> AcquireConditionalQueue();
  void ReleaseConditionalQueue(uint32_t queue);

 private:
  Peer self_;
  EndpointFn endpoint_;
  RcxtPoolFn rcxts_;
  uint32_t payload_cap_;
  std::function<void()> on_activity_;
};

}  // namespace nicsim::hal
