// SPDX-License-Identifier: Apache-2.0
// The fabric's parameters (fabric.*), declared beside FabricConfig: their defaults are its
// members', except where a run's default differs (RunDefault). The link rate and the seed
// come from the cluster (link.bandwidth, seed).
#pragma once

#include "base/params.h"
#include "sim/config/fault_rules.h"
#include "sim/fabric/switch_fabric.h"

namespace nicsim::sim {

inline const ParamDecls<FabricConfig>& FabricParams() {
  using C = FabricConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("fabric.paths", &C::paths, 1, kMaxFabricPaths,
                 "Independent routes between each pair of adapters")
           .RunDefault("4")
           .Enum(
               "fabric.routing", &C::routing,
               {{RoutingPolicy::kFixed, "fixed"},
                {RoutingPolicy::kRoundRobin, "round_robin"},
                {RoutingPolicy::kRandom, "random"}},
               "Per-packet path choice: fixed = hash(src, dest) % paths, round_robin = each source "
               "cycles through the paths, random = seeded draw; the last two skip paths that are "
               "down")
           .RunDefault("round_robin")
           .Duration("fabric.path_skew", &C::path_skew_ps,
                     "Extra propagation delay of path p: p x this duration")
           // After fabric.paths: the outages name paths.
           .Custom(
               "fabric.path_down", ParamType::kIntList,
               "Path outages as triples [path, down_at_ns, up_at_ns, ...] (up_at_ns = -1: stays "
               "down); [-1] = none",
               [](const C& c) {
                 NICSIM_CHECK(c.outages.empty(), "a default outage has no text");
                 return std::string("[-1]");
               },
               [](const ParamSource& p, C& c) {
                 Result<std::vector<PathOutage>> outages =
                     PathOutagesFromList(p.IntList("fabric.path_down"), c.paths);
                 if (!outages.ok()) return outages.status();
                 c.outages = std::move(*outages);
                 return Status();
               })
           .Range(-1, std::numeric_limits<int64_t>::max())
           .Probability("fabric.loss", &C::loss, "Probability that the fabric drops a packet")
           .Probability("fabric.duplicate", &C::duplicate,
                        "Probability that the fabric delivers a packet twice")
           .Probability(
               "fabric.reorder", &C::reorder,
               "Probability that a packet is held back by fabric.reorder_delay (arrives out "
               "of order)")
           .Probability("fabric.corrupt", &C::corrupt,
                        "Probability that a packet arrives with a corrupted payload (bad CRC)")
           .Custom(
               "fabric.faults", ParamType::kString,
               "Faults of one path or one adapter's links, on top of the fabric-wide ones: rules "
               "'SCOPE: KIND=P, ...' separated by ';', SCOPE = path N, link A (adapter A's links "
               "into every plane) or link A/P (into plane P only), KIND = loss, duplicate, "
               "reorder or corrupt (probabilities) or reorder_delay (duration); '' = none",
               [](const C& c) {
                 NICSIM_CHECK(c.fault_rules.empty(), "a default fault rule has no text");
                 return std::string();
               },
               [](const ParamSource& p, C& c) {
                 Result<std::vector<FaultRule>> rules = ParseFaultRules(p.String("fabric.faults"));
                 if (!rules.ok())
                   return Status::Error("fabric.faults: " + rules.status().message());
                 c.fault_rules = std::move(*rules);
                 return Status();
               })
           .Check([](std::string_view text) { return ParseFaultRules(text).status(); })
           .Duration("fabric.hop_latency", &C::hop_latency_ps,
                     "Latency of one hop through the fabric")
           .Duration("fabric.link_delay", &C::link_delay_ps,
                     "Propagation delay of one fabric link (a frame crosses two: "
                     "adapter-switch-adapter)")
           .Size("fabric.port_buffer", &C::port_buffer_bytes,
                 "Bytes each switch output port buffers (frame on the wire included); a frame that "
                 "does not fit is dropped; 0 = unlimited")
           .Duration("fabric.reorder_delay", &C::reorder_delay_ps,
                     "Extra delay given to a reordered packet")
           .Bool("fabric.cut_through", &C::cut_through,
                 "Cut-through switches: a frame is forwarded once its header is in (false: store "
                 "and forward, after its last byte)");
  return *decls;
}

}  // namespace nicsim::sim
