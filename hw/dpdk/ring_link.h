// SPDX-License-Identifier: Apache-2.0
// Two DpdkPorts joined back to back in one process, without root or a NIC: two rte_rings,
// each the transmit queue of one ethdev and the receive queue of the other (net_ring PMD).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "hw/dpdk/dpdk_port.h"

struct rte_ring;

namespace nicsim::hw::dpdk {

/**
 * A point-to-point link made of two rings:
 *
 *     port a  --tx-->  ring to_b  --rx-->  port b
 *     port a  <--rx--  ring to_a  <--tx--  port b
 *
 * Each port is an ethdev made by rte_eth_from_rings (the net_ring PMD, created at run time
 * rather than with --vdev, so any number of links can exist and the EAL options need not
 * name them). The rings are single-producer, single-consumer: use the link from one thread.
 * A test injects raw frames into a port's receive side by enqueueing mbufs on its ring.
 */
class RingLink {
 public:
  /** Default ring size in frames (a power of two). */
  static constexpr uint32_t kDefaultRingFrames = 1024;

  /** Creates the rings, the two ethdevs and the two ports; the EAL must be up. */
  static Result<std::unique_ptr<RingLink>> Create(const DpdkPortConfig& config = {},
                                                  uint32_t ring_frames = kDefaultRingFrames);
  /**
   * Frees every frame on both rings while both pools live, then destroys the ports (which close
   * their ethdevs and free their pools), removes the vdevs and frees the rings.
   */
  ~RingLink();
  RingLink(const RingLink&) = delete;
  RingLink& operator=(const RingLink&) = delete;

  DpdkPort& a() { return *a_; }
  DpdkPort& b() { return *b_; }
  /** The ring port a receives from (port b's transmit queue). */
  rte_ring* to_a() const { return to_a_; }
  /** The ring port b receives from (port a's transmit queue). */
  rte_ring* to_b() const { return to_b_; }

 private:
  RingLink() = default;

  rte_ring* to_a_ = nullptr;
  rte_ring* to_b_ = nullptr;
  std::string name_a_;
  std::string name_b_;
  std::unique_ptr<DpdkPort> a_;
  std::unique_ptr<DpdkPort> b_;
};

}  // namespace nicsim::hw::dpdk
