// SPDX-License-Identifier: Apache-2.0
// `nicsim tun`: every simulated node's IP interface (ulp/ip/) as a Linux TUN device in a
// network namespace of its own, so real programs (ping, nc, any socket program) talk across
// the simulated fabric with its faults. The simulation runs paced by the wall clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nicsim::sim {

/** What `nicsim tun` runs (its flags). */
struct TunOptions {
  /** --nodes: simulated nodes, 2 to 64. */
  uint32_t nodes = 2;
  /** --prefix: namespaces are PREFIX-<node>, 1 to 40 characters. */
  std::string prefix = "nicsim";
  /** --duration: wall-clock seconds to run; 0 runs until SIGINT or SIGTERM. */
  double duration_s = 0;
  /** --mtu: of every TUN device, 576 to 65535. */
  uint32_t mtu = 65535;
  /** --set KEY=VALUE: parameters over the embedded default (backend=func, nodes=--nodes). */
  std::vector<std::string> sets;
};

/** Runs the nodes as TUN devices until the duration ends or a signal comes; the exit code
 *  (2 for options out of range, no root, or a bad --set). */
int RunTun(const TunOptions& options);

}  // namespace nicsim::sim
