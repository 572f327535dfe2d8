// SPDX-License-Identifier: Apache-2.0
// The seam through which the MPI layer moves a message to a rank on its own node without the
// adapter (mpi.intranode): shared-memory postboxes (ulp/mpi/postbox_path.h) or push-pull
// messaging (ulp/mpi/pushpull_path.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace nicsim::mpi {

/**
 * One rank's way to the other ranks of its node. It carries the same (wire context, tag,
 * bytes) triples the reliable transport does, so every MPI protocol (eager, rendezvous,
 * synchronous) runs over it unchanged. Messages from one rank to another arrive once each,
 * in the order they were sent.
 */
class IntranodePath {
 public:
  /** Called with (source world rank, wire context, tag, bytes) for each message that arrives. */
  using DeliverFn =
      std::function<void(uint32_t src, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes)>;

  virtual ~IntranodePath() = default;

  /** True if messages to world rank `world` go this way (it shares this rank's node). */
  virtual bool Reaches(uint32_t world) const = 0;

  /**
   * Sends `bytes` to `dest` (a rank Reaches). `on_done` runs once every byte is out of the
   * caller's hands (copied where the receiver reads it); the message may arrive later.
   */
  virtual void Send(uint32_t dest, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes,
                    std::function<void()> on_done) = 0;

  /** Where arriving messages go (replacing the previous function; nullptr: nowhere). */
  virtual void OnDeliver(DeliverFn fn) = 0;
};

}  // namespace nicsim::mpi
