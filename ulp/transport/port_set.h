// SPDX-License-Identifier: Apache-2.0
// The ports one task's transport sends and receives through, and how it names a peer's
// window on each: every part of the transport reaches the HAL through this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "hal/peer.h"
#include "hal/port.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * One port per adapter the task uses (all on the same node). RDMA pipeline slots are
 * striped over them: slot s uses port s % size().
 */
class PortSet {
 public:
  /** `peer_of(task, i)` names the window task `task` receives on through its port i. */
  using PeerFn = std::function<hal::Peer(uint32_t task, uint32_t port)>;

  PortSet(std::vector<hal::Port*> ports, PeerFn peer_of)
      : ports_(std::move(ports)), peer_of_(std::move(peer_of)) {}

  uint32_t size() const { return static_cast<uint32_t>(ports_.size()); }
  hal::Port& operator[](uint32_t i) const { return *ports_[i]; }
  /** Task `task`'s window as seen through port `port`. */
  hal::Peer PeerOf(uint32_t task, uint32_t port) const { return peer_of_(task, port); }
  /** The port a pipeline slot uses. */
  uint32_t SlotPort(uint32_t slot) const { return slot % size(); }
  /** Sends a header-only packet that is not acknowledged (an ack, an answer) to `task`
   *  through port `port`. */
  void SendHeader(uint32_t port, uint32_t task, const Header& h) const {
    ports_[port]->Send(PeerOf(task, port), reinterpret_cast<const uint8_t*>(&h), sizeof(h), 0);
  }
  /** Bytes of message data one packet carries on every port (behind the transport header). */
  uint32_t FragmentBytes() const {
    uint32_t payload = ports_[0]->max_payload();
    for (const hal::Port* p : ports_) payload = std::min(payload, p->max_payload());
    return payload - static_cast<uint32_t>(sizeof(Header));
  }

 private:
  std::vector<hal::Port*> ports_;
  PeerFn peer_of_;
};

}  // namespace nicsim::ulp
