// SPDX-License-Identifier: Apache-2.0
// The port's settings (EAL options, mode, message counts...) from its port.* parameters: a
// scenario file's (`nicsim port --scenario FILE`), or their defaults, under the command line's
// flags, which are the same parameters by other names.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/status.h"
#include "realport/port/command.h"

namespace nicsim::sim {

/**
 * Reads every port.* parameter into `options`: from the scenario at `path` (empty: the
 * defaults), each one in `given` (parameter name -> text, as --set takes it) over it; `seed`,
 * when set, over the scenario's seed. The other members of `options` are left as they are.
 * Errors are the scenario loader's "path:line:col: message", or name the flag of a given
 * value; on error `options` is unchanged.
 */
Status ApplyPortParams(const std::string& path, const std::map<std::string, std::string>& given,
                       std::optional<int64_t> seed, PortCommandOptions* options);

/** The flag of port parameter `name` on `nicsim port`'s command line: "--max-size" for
 *  port.max_size. */
std::string PortFlagOf(const std::string& name);

}  // namespace nicsim::sim
