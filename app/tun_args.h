// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim tun`.
#pragma once

#include <CLI/CLI.hpp>

#include "realport/tun/tun_command.h"

namespace nicsim::sim {

/** Declares tun's options on `command`, written into `options` (RunTun checks their ranges). */
void AddTunOptions(CLI::App& command, TunOptions* options);

}  // namespace nicsim::sim
