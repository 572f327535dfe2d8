// SPDX-License-Identifier: Apache-2.0
#include "app/tun_args.h"

namespace nicsim::sim {

void AddTunOptions(CLI::App& command, TunOptions* options) {
  command.add_option("--nodes", options->nodes, "Simulated nodes, 2 to 64 (default 2)");
  command.add_option("--prefix", options->prefix,
                     "Namespaces are PREFIX-<node>, 1 to 40 characters (default nicsim)");
  command.add_option("--duration", options->duration_s,
                     "Wall-clock seconds to run (default 0: until SIGINT or SIGTERM)");
  command.add_option("--mtu", options->mtu,
                     "MTU of every TUN device, 576 to 65535 (default 65535)");
  command.add_option("--set", options->sets, "Override a parameter: key=value (repeatable)")
      ->allow_extra_args(false);
}

}  // namespace nicsim::sim
