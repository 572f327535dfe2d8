// SPDX-License-Identifier: Apache-2.0
// The command line of `nicsim port`: a flag for each port.* parameter, made from the
// parameter's declaration (realport/port/command_params.h: name, type, default, description),
// and the flags that are no parameters (the two adapter ids, the seed, verbs addresses, the
// network namespace of ip mode).
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "base/status.h"
#include "realport/port/command.h"

namespace nicsim::sim {

struct PortArgs {
  /** --scenario: a file whose port.* parameters and seed set the flags not given. */
  std::string scenario;
  /** port.* parameter name -> the text its flag was given (only the flags given count). */
  std::map<std::string, std::string> params;
  /** --seed as given; empty: the scenario's, else 1. */
  std::string seed;
  /** The flags that are no parameters, written straight in. */
  PortCommandOptions options;
};

/** Declares every flag of `nicsim port` on `command`, written into `args`. */
void AddPortOptions(CLI::App& command, PortArgs* args);

/** The port's options: the scenario's or default parameters under the flags given. */
Result<PortCommandOptions> FinishPortArgs(const CLI::App& command, const PortArgs& args);

}  // namespace nicsim::sim
