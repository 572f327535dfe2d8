// SPDX-License-Identifier: Apache-2.0
// Parsing of `fabric.faults`: rules "SCOPE: KIND=P, KIND=P" separated by ';', where SCOPE is
// "path N", "link A" or "link A/P" and KIND one of loss, duplicate, reorder, corrupt (each a
// probability) or reorder_delay (a duration).
#include "sim/config/fault_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "base/text.h"
#include "base/units.h"

namespace nicsim::sim {
namespace {

constexpr const char* kKinds[] = {"loss", "duplicate", "reorder", "corrupt", "reorder_delay"};
/** kKinds[kReorder] is "reorder" (reorder_delay needs it). */
constexpr size_t kReorder = 2;

/** Trim for rule text, which may run over several lines of a TOML string. */
std::string_view TrimBlanks(std::string_view s) { return Trim(s, " \t\r\n"); }

/** A whole non-negative decimal integer below 2^32, or false. */
bool ParseIndex(std::string_view s, uint32_t* out) {
  const std::optional<int64_t> value = ParseInt64(s);
  if (!value || *value < 0 || *value > int64_t{UINT32_MAX}) return false;
  *out = static_cast<uint32_t>(*value);
  return true;
}

/** "path N", "link A" or "link A/P" into `rule`; an error message otherwise. */
std::string ParseScope(std::string_view scope, FaultRule& rule) {
  const size_t space = scope.find_first_of(" \t");
  const std::string_view word = scope.substr(0, space);
  const std::string_view where =
      space == std::string_view::npos ? std::string_view() : TrimBlanks(scope.substr(space));
  if (word == "path") {
    rule.scope = FaultRule::Scope::kPath;
    if (!ParseIndex(where, &rule.id)) {
      return fmt::format("path '{}' is not a number", Printable(where));
    }
    return {};
  }
  if (word == "link") {
    rule.scope = FaultRule::Scope::kLink;
    const size_t slash = where.find('/');
    const std::string_view adapter = TrimBlanks(where.substr(0, slash));
    if (!ParseIndex(adapter, &rule.id)) {
      return fmt::format("adapter '{}' is not a number", Printable(adapter));
    }
    if (slash != std::string_view::npos) {
      const std::string_view plane = TrimBlanks(where.substr(slash + 1));
      if (!ParseIndex(plane, &rule.plane) || rule.plane == FaultRule::kAllPlanes) {
        return fmt::format("plane '{}' is not a number", Printable(plane));
      }
    }
    return {};
  }
  return fmt::format("'{}' is not a scope: expected 'path N', 'link A' or 'link A/P'",
                     Printable(scope));
}

/** Parses a probability in [0, 1] for `kind`; an error message otherwise. */
std::string ParseProbability(std::string_view kind, std::string_view value, double* out) {
  const std::optional<double> p = ParseDouble(value);
  if (!p || !std::isfinite(*p) || *p < 0 || *p > 1) {
    return fmt::format("{} must be a probability in [0, 1], got '{}'", kind, Printable(value));
  }
  *out = *p;
  return {};
}

/** "KIND=VALUE, KIND=VALUE" into `rates`; an error message otherwise. */
std::string ParseFaults(std::string_view list, FaultRates& rates) {
  bool seen[std::size(kKinds)] = {};
  size_t count = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view fault = TrimBlanks(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    const size_t eq = fault.find('=');
    if (eq == std::string_view::npos) {
      return fmt::format("'{}' is not KIND=VALUE", Printable(fault));
    }
    const std::string_view kind = TrimBlanks(fault.substr(0, eq));
    const std::string_view value = TrimBlanks(fault.substr(eq + 1));
    const size_t k = static_cast<size_t>(std::find(std::begin(kKinds), std::end(kKinds), kind) -
                                         std::begin(kKinds));
    if (k == std::size(kKinds)) {
      return fmt::format(
          "'{}' is not a fault: expected loss, duplicate, reorder, corrupt or reorder_delay",
          Printable(kind));
    }
    if (seen[k]) return fmt::format("{} is given twice", kind);
    seen[k] = true;
    ++count;
    if (kind == "reorder_delay") {
      Result<int64_t> ps = ParseDuration(value);
      if (!ps.ok()) return fmt::format("reorder_delay: {}", ps.status().message());
      if (*ps == 0) return "reorder_delay must be above 0 (leave it out for fabric.reorder_delay)";
      if (*ps > kMaxDurationPs) {
        return fmt::format("reorder_delay must be at most {}, got {}",
                           FormatDuration(kMaxDurationPs), FormatDuration(*ps));
      }
      rates.reorder_delay_ps = static_cast<uint64_t>(*ps);
      continue;
    }
    double* rate = kind == "loss"        ? &rates.loss
                   : kind == "duplicate" ? &rates.duplicate
                   : kind == "reorder"   ? &rates.reorder
                                         : &rates.corrupt;
    std::string error = ParseProbability(kind, value, rate);
    if (!error.empty()) return error;
  }
  if (count == 0) return "no faults after ':'";
  if (rates.reorder_delay_ps != 0 && !seen[kReorder]) {
    return "reorder_delay needs reorder in the rule";
  }
  return {};
}

std::string RuleLabel(size_t number, std::string_view text) {
  return fmt::format("rule {} ('{}')", number, Printable(text));
}

}  // namespace

void FaultRates::Combine(const FaultRates& o) {
  // Independent draws: the fault happens unless both sets spare the frame.
  auto either = [](double a, double b) { return 1 - (1 - a) * (1 - b); };
  loss = either(loss, o.loss);
  duplicate = either(duplicate, o.duplicate);
  reorder = either(reorder, o.reorder);
  corrupt = either(corrupt, o.corrupt);
  reorder_delay_ps = std::max(reorder_delay_ps, o.reorder_delay_ps);
}

Result<std::vector<FaultRule>> ParseFaultRules(std::string_view text) {
  std::vector<FaultRule> rules;
  size_t number = 0;
  while (!TrimBlanks(text).empty()) {
    const size_t semi = text.find(';');
    const std::string_view rule_text = TrimBlanks(text.substr(0, semi));
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    if (rule_text.empty()) continue;  // "a; ; b" and a trailing ';' hold no rule
    ++number;
    const std::string label = RuleLabel(number, rule_text);
    const size_t colon = rule_text.find(':');
    if (colon == std::string_view::npos) {
      return Status::Error(label + ": expected 'SCOPE: KIND=PROBABILITY, ...'");
    }
    FaultRule rule;
    rule.text = std::string(rule_text);
    std::string error = ParseScope(TrimBlanks(rule_text.substr(0, colon)), rule);
    if (error.empty()) error = ParseFaults(rule_text.substr(colon + 1), rule.rates);
    if (!error.empty()) return Status::Error(label + ": " + error);
    rules.push_back(std::move(rule));
  }
  return rules;
}

Status CheckFaultRuleScopes(const std::vector<FaultRule>& rules, uint32_t paths,
                            uint32_t adapters) {
  for (size_t i = 0; i < rules.size(); ++i) {
    const FaultRule& r = rules[i];
    const std::string label = RuleLabel(i + 1, r.text);
    if (r.scope == FaultRule::Scope::kPath && r.id >= paths) {
      return Status::Error(
          fmt::format("{}: path {} is not in [0, fabric.paths) = [0, {})", label, r.id, paths));
    }
    if (r.scope == FaultRule::Scope::kLink) {
      if (r.id >= adapters) {
        return Status::Error(fmt::format(
            "{}: adapter {} is not in [0, {}) (the cluster's adapters)", label, r.id, adapters));
      }
      if (r.plane != FaultRule::kAllPlanes && r.plane >= paths) {
        return Status::Error(fmt::format("{}: plane {} is not in [0, fabric.paths) = [0, {})",
                                         label, r.plane, paths));
      }
    }
  }
  return Status();
}

Result<std::vector<PathOutage>> PathOutagesFromList(const std::vector<int64_t>& list,
                                                    uint32_t paths) {
  std::vector<PathOutage> outages;
  // A lone -1 stands for "no outages": the parameter store refuses empty lists.
  if (list.size() == 1 && list[0] == -1) return outages;
  if (list.size() % 3 != 0) {
    return Status::Error(
        "fabric.path_down: expected [-1] or triples [plane, down_at_ns, up_at_ns, ...], got " +
        std::to_string(list.size()) + " numbers");
  }
  for (size_t i = 0; i < list.size(); i += 3) {
    const std::string at = "fabric.path_down[" + std::to_string(i / 3) + "]: ";
    const int64_t plane = list[i];
    const int64_t down_ns = list[i + 1];
    const int64_t up_ns = list[i + 2];
    if (plane < 0 || plane >= static_cast<int64_t>(paths)) {
      return Status::Error(at + "plane " + std::to_string(plane) +
                           " is not in [0, fabric.paths) = [0, " + std::to_string(paths) + ")");
    }
    if (down_ns < 0)
      return Status::Error(at + "down_at_ns must be >= 0, got " + std::to_string(down_ns));
    if (up_ns != -1 && up_ns <= down_ns) {
      return Status::Error(at + "up_at_ns must be after down_at_ns (or -1 for never), got " +
                           std::to_string(up_ns));
    }
    constexpr int64_t kMaxNs = static_cast<int64_t>(PathOutage::kNever / 1000 - 1);
    if (down_ns > kMaxNs || up_ns > kMaxNs) return Status::Error(at + "time too large");
    PathOutage o;
    o.plane = static_cast<uint32_t>(plane);
    o.down_at_ps = static_cast<uint64_t>(down_ns) * 1000;
    o.up_at_ps = up_ns == -1 ? PathOutage::kNever : static_cast<uint64_t>(up_ns) * 1000;
    outages.push_back(o);
  }
  return outages;
}

}  // namespace nicsim::sim
