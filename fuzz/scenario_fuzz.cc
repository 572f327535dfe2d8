// SPDX-License-Identifier: Apache-2.0
// Fuzz targets: scenario TOML (ParseScenario) and --set flags (ApplySetFlag). Any input is
// either a scenario or a Status; a scenario's values must survive their own canonical text.
#include <string>

#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_targets.h"
#include "sim/config/fault_rules.h"
#include "sim/config/scenario.h"

namespace nicsim::fuzz {
namespace {

/**
 * What every accepted scenario satisfies: each value's canonical text (ToText, as the
 * stats.json echo writes it) sets it back to exactly the same value, and the fault rules it
 * accepted parse again.
 */
void CheckScenario(const sim::Scenario& scenario) {
  sim::ParamValues copy = scenario.params;
  for (std::string_view name : sim::ParamValues::Names()) {
    const std::string text = scenario.params.ToText(name);
    const Status status = copy.SetFromText(name, text);
    NICSIM_CHECK(status.ok(), "%.*s = '%s' does not read back: %s", static_cast<int>(name.size()),
                 name.data(), text.c_str(), status.message().c_str());
  }
  NICSIM_CHECK(copy == scenario.params, "canonical text changed a value");
  Result<std::vector<sim::FaultRule>> rules =
      sim::ParseFaultRules(scenario.params.String("fabric.faults"));
  NICSIM_CHECK(rules.ok(), "accepted fault rules fail to parse: %s",
               rules.status().message().c_str());
  // Scopes are checked against the fabric when a run starts (run_scenario.cc, 16 adapters
  // here); such an error is then located at the text that set fabric.faults.
  const Status scopes = sim::CheckFaultRuleScopes(
      *rules, static_cast<uint32_t>(scenario.params.Int("fabric.paths")), 16);
  if (!scopes.ok()) {
    const Status located =
        sim::LocateParamError(scenario, Status::Error("fabric.faults: " + scopes.message()));
    NICSIM_CHECK(!located.ok() && located.message().find(scopes.message()) != std::string::npos,
                 "LocateParamError lost the message: %s", located.message().c_str());
  }
}

}  // namespace

int FuzzScenario(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  Result<sim::Scenario> scenario = sim::ParseScenario(in.Rest(), "fuzz.toml");
  if (!scenario.ok()) {
    NICSIM_CHECK(!scenario.status().message().empty(), "an error without a message");
    return 0;
  }
  CheckScenario(*scenario);
  return 0;
}

int FuzzSetFlag(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  Result<sim::Scenario> scenario = sim::ParseScenario("", "fuzz.toml");
  NICSIM_CHECK(scenario.ok(), "the empty scenario: %s", scenario.status().message().c_str());
  std::string_view flags = in.Rest();
  while (!flags.empty()) {
    const size_t end = flags.find('\n');
    const std::string_view flag = flags.substr(0, end);
    flags.remove_prefix(end == std::string_view::npos ? flags.size() : end + 1);
    const sim::ParamValues before = scenario->params;
    const Status status = sim::ApplySetFlag(*scenario, flag);
    if (!status.ok()) {
      // On error nothing changes (scenario.h).
      NICSIM_CHECK(scenario->params == before, "a rejected --set %.*s changed a value",
                   static_cast<int>(flag.size()), flag.data());
      NICSIM_CHECK(!status.message().empty(), "an error without a message");
    }
  }
  CheckScenario(*scenario);
  return 0;
}

}  // namespace nicsim::fuzz
