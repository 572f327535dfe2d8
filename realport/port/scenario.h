// SPDX-License-Identifier: Apache-2.0
// `nicsim port --scenario FILE`: the port's settings (EAL options, mode, message counts...)
// from a scenario file's port.* parameters and its seed, under the command line's flags.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "realport/port/command.h"

namespace nicsim::sim {

/**
 * Loads the scenario at `path` and copies its port.* parameters and `seed` into `options`,
 * except where `given(flag)` says the flag (e.g. "--eal") was on the command line. Errors are
 * the scenario loader's "path:line:col: message"; on error `options` is unchanged.
 */
Status ApplyPortScenario(const std::string& path,
                         const std::function<bool(std::string_view flag)>& given,
                         PortCommandOptions* options);

}  // namespace nicsim::sim
