// SPDX-License-Identifier: Apache-2.0
// The built-in scenario texts. Keep each one a valid, readable example of the file format:
// docs/scenarios.md points users here, and a test parses every one.
#include "sim/config/builtin_scenarios.h"

#include <fmt/format.h>

#include <array>
#include <string>

namespace nicsim::sim {
namespace {

/** One compiled-in scenario. */
struct Builtin {
  std::string_view name;
  std::string_view description;
  std::string_view text;
};

constexpr std::string_view kDefault =
    R"toml(# MPI ping-pong latency and bandwidth sweep on the HPS-like preset.
name = "default"
description = "MPI ping-pong latency and bandwidth sweep between two nodes (hps)"

seed = 1
backend = "systemc"
preset = "hps"
nodes = 2
workload = "mpi_pingpong"

[mpi]
ranks = 2
sizes = [0, 8, 1024, 65536, 1048576, 4194304]
iterations = 50
bandwidth_messages = 16
window = 8
)toml";

constexpr std::string_view kPingPong = R"toml(# Packet-mode ping-pong latency and bandwidth sweep.
name = "pingpong"
description = "Packet-mode ping-pong latency and bandwidth sweep between two nodes"

seed = 1
backend = "systemc"
nodes = 2
workload = "pingpong_sweep"

[pingpong]
sizes = [0, 16, 64, 256, 1024, 2032]
iterations = 200
stream_packets = 2000
)toml";

constexpr std::string_view kStream = R"toml(# One-way stream from one node to another.
name = "stream"
description = "One-way stream of 100000 1 KiB packets between two nodes"

seed = 1
backend = "systemc"
nodes = 2
workload = "stream"

[stream]
packets = 100000
size = 1024
)toml";

constexpr std::string_view kExchange = R"toml(# Random-size messages among four nodes.
name = "exchange"
description = "Random exchange of 20000 messages among four nodes with two windows each"

seed = 1
backend = "systemc"
nodes = 4
windows_per_adapter = 2
workload = "random_exchange"

[exchange]
messages = 20000
)toml";

constexpr std::array<Builtin, 4> kBuiltins = {{
    {"default", "MPI ping-pong latency and bandwidth sweep between two nodes (hps)", kDefault},
    {"pingpong", "Packet-mode ping-pong latency and bandwidth sweep between two nodes", kPingPong},
    {"stream", "One-way stream of 100000 1 KiB packets between two nodes", kStream},
    {"exchange", "Random exchange of 20000 messages among four nodes with two windows each",
     kExchange},
}};

}  // namespace

std::optional<std::string_view> BuiltinScenarioText(std::string_view name) {
  for (const Builtin& builtin : kBuiltins) {
    if (builtin.name == name) return builtin.text;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string_view, std::string_view>> BuiltinScenarioList() {
  std::vector<std::pair<std::string_view, std::string_view>> list;
  for (const Builtin& builtin : kBuiltins) list.emplace_back(builtin.name, builtin.description);
  return list;
}

Result<Scenario> LoadBuiltinScenario(std::string_view name) {
  std::optional<std::string_view> text = BuiltinScenarioText(name);
  if (!text) {
    std::string names;
    for (const Builtin& builtin : kBuiltins) {
      names += names.empty() ? "" : ", ";
      names += builtin.name;
    }
    return Status::Error(
        fmt::format("unknown built-in scenario '{}' (built-ins: {})", name, names));
  }
  return ParseScenario(*text, fmt::format("builtin:{}", name));
}

}  // namespace nicsim::sim
