// SPDX-License-Identifier: Apache-2.0
// Built-in scenarios: TOML text compiled into the binary, so `nicsim run` works with no files.
// They parse through the same path as user files ("builtin:<name>" in messages).
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sim/config/scenario.h"

namespace nicsim::sim {

/** The TOML text of built-in scenario `name` ("default", "stream", "exchange"), if it exists. */
std::optional<std::string_view> BuiltinScenarioText(std::string_view name);

/** Every built-in scenario as (name, one-line description), in the order to list them. */
std::vector<std::pair<std::string_view, std::string_view>> BuiltinScenarioList();

/** Parses built-in scenario `name` with source "builtin:<name>"; unknown names are an error. */
Result<Scenario> LoadBuiltinScenario(std::string_view name);

}  // namespace nicsim::sim
