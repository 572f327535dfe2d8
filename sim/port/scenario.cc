// SPDX-License-Identifier: Apache-2.0
// Scenario parameters to `nicsim port` options: one table, flag by flag.
#include "sim/port/scenario.h"

#include "sim/config/scenario.h"

namespace nicsim::sim {

Status ApplyPortScenario(const std::string& path,
                         const std::function<bool(std::string_view flag)>& given,
                         PortCommandOptions* options) {
  Result<Scenario> scenario = LoadScenarioFile(path);
  if (!scenario.ok()) return scenario.status();
  const ParamValues& p = scenario->params;
  PortCommandOptions out = *options;
  auto text = [&](const char* flag, const char* param, std::string* field) {
    if (!given(flag)) *field = p.String(param);
  };
  auto integer = [&](const char* flag, const char* param, int64_t* field) {
    if (!given(flag)) *field = p.Int(param);
  };
  text("--eal", "port.eal", &out.eal);
  text("--verbs", "port.verbs", &out.verbs);
  text("--mode", "port.mode", &out.mode);
  integer("--messages", "port.messages", &out.messages);
  integer("--size", "port.size", &out.size);
  integer("--warmup", "port.warmup", &out.warmup);
  integer("--max-size", "port.max_size", &out.max_size);
  integer("--port-id", "port.port_id", &out.port_id);
  integer("--adapter-lcore", "port.adapter_lcore", &out.adapter_lcore);
  integer("--gid-index", "port.gid_index", &out.gid_index);
  integer("--qkey", "port.qkey", &out.qkey);
  integer("--seed", "seed", &out.seed);
  if (!given("--timeout-s")) out.timeout_s = static_cast<double>(p.DurationPs("port.timeout")) * 1e-12;
  if (!out.eal.empty() && !out.verbs.empty()) {
    return Status::Error(path + ": port.eal and port.verbs (or --eal and --verbs) are both set; "
                                "a port is DPDK or verbs, not both");
  }
  *options = out;
  return Status();
}

}  // namespace nicsim::sim
