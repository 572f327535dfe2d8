// SPDX-License-Identifier: Apache-2.0
// Scenario parameters to `nicsim port` options: one table, flag by flag.
#include "realport/port/scenario.h"

#include "sim/config/scenario.h"
#include "realport/port/command_params.h"

namespace nicsim::sim {

Status ApplyPortScenario(const std::string& path,
                         const std::function<bool(std::string_view flag)>& given,
                         PortCommandOptions* options) {
  Result<Scenario> scenario = LoadScenarioFile(path);
  if (!scenario.ok()) return scenario.status();
  const ParamValues& p = scenario->params;
  PortCommandOptions out = *options;
  // Each port.NAME is read unless its flag, --NAME with '-' for '_', was given (port.timeout's
  // flag is --timeout-s).
  auto flag_of = [](std::string_view name) {
    if (name == "port.timeout") return std::string("--timeout-s");
    std::string flag = "--" + std::string(name.substr(name.find('.') + 1));
    for (char& c : flag) c = c == '_' ? '-' : c;
    return flag;
  };
  const Status read = PortParams().Read(
      p, &out, [&](std::string_view name) { return !given(flag_of(name)); });
  if (!read.ok()) return Status::Error(path + ": " + read.message());
  if (!given("--seed")) out.seed = p.Int("seed");
  if (!out.eal.empty() && !out.verbs.empty()) {
    return Status::Error(path + ": port.eal and port.verbs (or --eal and --verbs) are both set; "
                                "a port is DPDK or verbs, not both");
  }
  *options = out;
  return Status();
}

}  // namespace nicsim::sim
