// SPDX-License-Identifier: Apache-2.0
// A scenario's port.* parameters and the command line's flags to `nicsim port` options.
#include "realport/port/scenario.h"

#include "realport/port/command_params.h"
#include "sim/config/scenario.h"

namespace nicsim::sim {

std::string PortFlagOf(const std::string& name) {
  std::string flag = "--" + name.substr(name.find('.') + 1);
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

Status ApplyPortParams(const std::string& path, const std::map<std::string, std::string>& given,
                       std::optional<int64_t> seed, PortCommandOptions* options) {
  ParamValues values = ParamValues::Defaults();
  if (!path.empty()) {
    Result<Scenario> scenario = LoadScenarioFile(path);
    if (!scenario.ok()) return scenario.status();
    values = scenario->params;
    if (!seed) seed = values.Int("seed");
  }
  for (const auto& [name, text] : given) {
    if (Status s = values.SetFromText(name, text); !s.ok()) {
      return Status::Error(PortFlagOf(name) + ": " + s.message());
    }
  }
  PortCommandOptions out = *options;
  if (Status read = PortParams().Read(values, &out); !read.ok()) {
    return Status::Error((path.empty() ? std::string() : path + ": ") + read.message());
  }
  if (seed) out.seed = *seed;
  *options = out;
  return Status();
}

}  // namespace nicsim::sim
