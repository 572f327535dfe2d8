// SPDX-License-Identifier: Apache-2.0
// `nicsim port`: one adapter on a real DPDK port exchanging checked messages with a peer
// adapter run by another nicsim process on the other end of the wire.
#pragma once

#include <cstdint>
#include <string>

namespace nicsim::sim {

/** The flags of `nicsim port`. */
struct PortCommandOptions {
  /** EAL options, blank separated (see hw/dpdk/eal.h). */
  std::string eal;
  /** This adapter's id, and the peer's. */
  int64_t node = -1;
  int64_t peer = -1;
  /** Messages sent each way. */
  int64_t messages = 20'000;
  /** Seeds both sides' message sizes: both processes must use the same seed. */
  int64_t seed = 1;
  /** The ethdev port the adapter sits on. */
  int64_t port_id = 0;
  /**
   * Largest payload in bytes; negative means the largest single-packet payload the window and
   * the port's MTU allow. Both sides derive each other's sizes from it: it must match.
   */
  int64_t max_size = -1;
  /** Wall-clock limit of the whole exchange, peer start-up included. */
  double timeout_s = 60.0;
};

/**
 * Runs the exchange and prints a one-line JSON summary on stdout. Returns the exit code:
 * 0 when every message of the peer arrived exactly once and intact and the peer reported all
 * of ours, 1 on a failed run (timeout, errors), 2 on bad flags or a port that cannot start.
 */
int PortCommand(const PortCommandOptions& options);

}  // namespace nicsim::sim
