// SPDX-License-Identifier: Apache-2.0
#include "app/port_args.h"

#include "base/text.h"
#include "realport/port/command_params.h"
#include "realport/port/scenario.h"

namespace nicsim::sim {
namespace {

constexpr std::string_view kDocPrefix = "nicsim port: ";

/** The help line of a parameter's flag: its description, without the command's name, and its
 *  default. */
std::string FlagHelp(const ParamSpec& spec) {
  std::string doc = spec.description;
  if (doc.rfind(kDocPrefix, 0) == 0) doc = doc.substr(kDocPrefix.size());
  return doc + " (default " + (spec.default_value.empty() ? "none" : spec.default_value) + ")";
}

}  // namespace

void AddPortOptions(CLI::App& command, PortArgs* args) {
  command.add_option("--scenario", args->scenario,
                     "Scenario file whose port.* parameters and seed set the flags not given");
  for (const ParamSpec& spec : PortParams().Specs()) {
    command.add_option(PortFlagOf(spec.name), args->params[spec.name], FlagHelp(spec))
        ->type_name(std::string(ParamTypeName(spec.type)));
  }
  PortCommandOptions& o = args->options;
  command.add_option("--node", o.node, "This adapter's id")->required();
  command.add_option("--peer", o.peer, "The peer adapter's id")->required();
  command.add_option("--seed", args->seed,
                     "Seed of the message sizes, the same on both sides (default: the "
                     "scenario's, else 1)");
  command.add_option("--peer-addr", o.peer_addr,
                     "Verbs: the peer's LID:QPN, [GID]:QPN, or @FILE (its --addr-file)");
  command.add_option("--addr-file", o.addr_file, "Verbs: write this port's address here");
  command.add_option("--netns", o.netns,
                     "Ip mode: network namespace to create (default nicsim-port-<node>)");
  command.add_option("--tun-mtu", o.tun_mtu, "Ip mode: MTU of TUN device ipif0 (default 65535)");
}

Result<PortCommandOptions> FinishPortArgs(const CLI::App& command, const PortArgs& args) {
  std::map<std::string, std::string> given;
  for (const auto& [name, text] : args.params) {
    if (command.count(PortFlagOf(name)) > 0) given[name] = text;
  }
  std::optional<int64_t> seed;
  if (!args.seed.empty()) {
    seed = ParseInt64(args.seed);
    if (!seed) return Status::Error("--seed: expected an integer, got '" + args.seed + "'");
  }
  PortCommandOptions options = args.options;
  if (Status s = ApplyPortParams(args.scenario, given, seed, &options); !s.ok()) return s;
  return options;
}

}  // namespace nicsim::sim
