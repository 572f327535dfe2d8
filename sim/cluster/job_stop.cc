// SPDX-License-Identifier: Apache-2.0
// Merging what each process of a split MPI job found when it stopped.
#include "sim/cluster/job_stop.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nicsim::sim {
namespace {

/** The rank a reason names first ("rank 12 gave up ..."); reasons naming none sort last. */
uint64_t RankNamed(const std::string& reason) {
  if (reason.rfind("rank ", 0) != 0) return UINT64_MAX;
  char* end = nullptr;
  const unsigned long long r = std::strtoull(reason.c_str() + 5, &end, 10);
  return end == reason.c_str() + 5 ? UINT64_MAX : r;
}

/** Every process's `key` list, in the order of the rank each item names (then process, then
 *  as found), each item once. */
std::vector<std::string> MergeByRank(const std::vector<nlohmann::json>& parts, const char* key) {
  std::vector<std::tuple<uint64_t, size_t, size_t, std::string>> items;
  for (size_t p = 0; p < parts.size(); ++p) {
    size_t i = 0;
    for (const nlohmann::json& item : parts[p][key]) {
      const auto text = item.get<std::string>();
      items.emplace_back(RankNamed(text), p, i++, text);
    }
  }
  std::sort(items.begin(), items.end());
  std::vector<std::string> merged;
  for (auto& [rank, process, order, text] : items) {
    if (std::find(merged.begin(), merged.end(), text) == merged.end()) {
      merged.push_back(std::move(text));
    }
  }
  return merged;
}

}  // namespace

JobStop AgreeOnStop(distrib::Collectives& world, const JobStop& mine) {
  const nlohmann::json out = {
      {"reasons", mine.reasons},       {"waits", mine.waits},
      {"unfinished", mine.unfinished}, {"past_time_limit", mine.past_time_limit},
      {"now_ps", mine.now_ps},         {"first_failure_ps", mine.first_failure_ps}};
  JobStop all;
  std::vector<nlohmann::json> parts;
  for (const std::string& part : world.AllGather(out.dump())) {
    parts.push_back(nlohmann::json::parse(part));
  }
  for (const nlohmann::json& part : parts) {
    for (const uint32_t r : part["unfinished"]) all.unfinished.push_back(r);
    all.past_time_limit = all.past_time_limit || part["past_time_limit"].get<bool>();
    all.now_ps = std::max(all.now_ps, part["now_ps"].get<uint64_t>());
    all.first_failure_ps = std::min(all.first_failure_ps, part["first_failure_ps"].get<uint64_t>());
  }
  all.reasons = MergeByRank(parts, "reasons");
  all.waits = MergeByRank(parts, "waits");
  std::sort(all.unfinished.begin(), all.unfinished.end());
  return all;
}

std::string JoinAtMost(const std::vector<std::string>& items, size_t most, std::string_view sep,
                       std::string_view what) {
  std::string joined;
  for (size_t i = 0; i < items.size() && i < most; ++i) {
    if (i > 0) joined += sep;
    joined += items[i];
  }
  if (items.size() > most) {
    joined += fmt::format("{}and {} more of {} {}", sep, items.size() - most, items.size(), what);
  }
  return joined;
}

std::string RankList(const std::vector<uint32_t>& ranks) {
  std::vector<std::string> names;
  names.reserve(ranks.size());
  for (const uint32_t r : ranks) names.push_back(std::to_string(r));
  return JoinAtMost(names, kListedRanks, ", ", "ranks");
}

}  // namespace nicsim::sim
