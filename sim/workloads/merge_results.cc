// SPDX-License-Identifier: Apache-2.0
// Sums of verdict figures over partitions and the merge of their keyed error lists on rank 0.
#include "sim/workloads/merge_results.h"

#include <algorithm>
#include <tuple>

namespace nicsim::sim {

WorkloadResult MergeResults(distrib::Collectives& world, const WorkloadResult& local) {
  WorkloadResult all;
  all.messages_sent = world.Sum(local.messages_sent);
  all.messages_delivered = world.Sum(local.messages_delivered);
  all.bytes_delivered = world.Sum(local.bytes_delivered);
  all.messages_duplicated = world.Sum(local.messages_duplicated);
  all.messages_damaged = world.Sum(local.messages_damaged);
  all.messages_lost = world.Sum(local.messages_lost);
  all.stalled = world.Sum(local.stalled ? 1 : 0) > 0;
  // Each partition's errors with their keys; an error without one sorts after every event.
  nlohmann::json mine = nlohmann::json::array();
  for (size_t i = 0; i < local.errors.size(); ++i) {
    const auto key =
        i < local.error_keys.size() ? local.error_keys[i] : std::make_pair(UINT64_MAX, UINT64_MAX);
    mine.push_back({key.first, key.second, local.errors[i]});
  }
  const uint64_t error_count = world.Sum(local.error_count);
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> errors;
  uint64_t repeated = 0;
  const std::vector<std::string> parts = world.GatherToRoot(mine.dump());
  for (size_t p = 0; p < parts.size(); ++p) {
    const auto earlier_end = static_cast<std::ptrdiff_t>(errors.size());  // other processes'
    for (const nlohmann::json& e : nlohmann::json::parse(parts[p])) {
      std::tuple<uint64_t, uint64_t, std::string> error(e[0].get<uint64_t>(), e[1].get<uint64_t>(),
                                                        e[2].get<std::string>());
      // An error of no event that every process reports in the same words (a verdict they
      // agreed on, such as an MPI job's stop) is one error, as in one process.
      if (std::get<0>(error) == UINT64_MAX &&
          std::find(errors.begin(), errors.begin() + earlier_end, error) !=
              errors.begin() + earlier_end) {
        ++repeated;
        continue;
      }
      errors.push_back(std::move(error));
    }
  }
  // Keys are unique across partitions (an event runs in one), and one event's errors keep
  // their order: a stable sort by key gives the one-process order.
  std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (auto& [time_ps, tie, message] : errors) {
    if (all.errors.size() == WorkloadResult::kErrorsKept) break;
    all.errors.push_back(std::move(message));
    all.error_keys.emplace_back(time_ps, tie);
  }
  all.error_count = error_count - repeated;
  return all;
}

}  // namespace nicsim::sim
