// SPDX-License-Identifier: Apache-2.0
// `nicsim tun`: every simulated node's IP interface (ulp/ip/) as a Linux TUN device in a
// network namespace of its own, so real programs (ping, nc, any socket program) talk across
// the simulated fabric with its faults. The simulation runs paced by the wall clock.
#pragma once

namespace nicsim::sim {

/** Runs `nicsim tun ARGS` (argv[1] is "tun"); returns the exit code. */
int TunCommand(int argc, char** argv);

}  // namespace nicsim::sim
