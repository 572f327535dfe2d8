// SPDX-License-Identifier: Apache-2.0
// Shared by the sim/config tests: the exact error a scenario's text gives, so a test states
// the whole "path:line:col: message" it expects.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sim/config/scenario.h"

namespace nicsim::sim {

/** The error ParseScenario gives for `toml` named "t.toml" ("OK" when it parses). */
inline std::string ParseError(std::string_view toml) {
  Result<Scenario> scenario = ParseScenario(toml, "t.toml");
  return scenario.ok() ? "OK" : scenario.status().message();
}

}  // namespace nicsim::sim
