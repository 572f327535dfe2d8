// SPDX-License-Identifier: Apache-2.0
// Fault rules: fault probabilities for one fabric path or for one adapter's links, written
// in the `fabric.faults` parameter as text, e.g.
//   "path 2: loss=0.1, corrupt=0.01; link 3: duplicate=0.05; link 1/0: reorder=0.2"
// (rules are separated by ';'; "link A/P" is adapter A's link into plane P only). A rule that
// reorders may hold frames back for its own time: "path 1: reorder=0.5, reorder_delay=10us".
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace nicsim::sim {

/** Probabilities of each fault kind, each in [0, 1]. */
struct FaultRates {
  double loss = 0;
  double duplicate = 0;
  double reorder = 0;
  double corrupt = 0;
  /** How long a frame this reorders is held back; 0: fabric.reorder_delay. */
  uint64_t reorder_delay_ps = 0;

  /**
   * Both sets of faults applied one after the other, drawn independently; a frame either
   * reorders is held back for the longer of the two delays.
   */
  void Combine(const FaultRates& other);
  bool operator==(const FaultRates& o) const {
    return loss == o.loss && duplicate == o.duplicate && reorder == o.reorder &&
           corrupt == o.corrupt && reorder_delay_ps == o.reorder_delay_ps;
  }
};

/** One rule: where its faults apply, and their rates. */
struct FaultRule {
  /** `plane` of a link rule that covers the adapter's links into every plane. */
  static constexpr uint32_t kAllPlanes = std::numeric_limits<uint32_t>::max();
  enum class Scope {
    /** Every frame through one plane. */
    kPath,
    /** Every frame to or from one adapter (on one plane, or on all of them). */
    kLink,
  };
  Scope scope = Scope::kPath;
  /** kPath: the plane. kLink: the adapter. */
  uint32_t id = 0;
  /** kLink: the plane of the link, or kAllPlanes. */
  uint32_t plane = kAllPlanes;
  FaultRates rates;
  /** The rule as written (trimmed), for messages. */
  std::string text;
};

/**
 * Parses `fabric.faults` text; blank text is no rules. Errors name the rule by its position
 * (from 1) and quote it: "rule 2 ('link 3/x: loss=0.1'): plane 'x' is not a number".
 */
Result<std::vector<FaultRule>> ParseFaultRules(std::string_view text);

/**
 * Checks each rule's plane and adapter against a fabric of `paths` planes and `adapters`
 * adapters: "rule 1 ('path 7: loss=1'): path 7 is not in [0, fabric.paths) = [0, 4)".
 */
Status CheckFaultRuleScopes(const std::vector<FaultRule>& rules, uint32_t paths, uint32_t adapters);

/** One scheduled outage of a plane: down at `down_at_ps`, up again at `up_at_ps`. */
struct PathOutage {
  /** Up time meaning "stays down for the rest of the run". */
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  uint32_t plane = 0;
  uint64_t down_at_ps = 0;
  uint64_t up_at_ps = kNever;
};

/**
 * Outages from the `fabric.path_down` list: `[-1]` means none, otherwise triples
 * [plane, down_at_ns, up_at_ns, ...] where up_at_ns = -1 keeps the plane down. Errors name
 * the parameter and the bad element.
 */
Result<std::vector<PathOutage>> PathOutagesFromList(const std::vector<int64_t>& list,
                                                    uint32_t paths);

}  // namespace nicsim::sim
