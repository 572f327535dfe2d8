// SPDX-License-Identifier: Apache-2.0
// The field-by-field merge of the partitions' stats.json into the one-process figures.
#include "sim/distrib/merge_stats.h"

#include <algorithm>
#include <string>

namespace nicsim::sim::distrib {
namespace {

uint64_t SumOf(const std::vector<nlohmann::json>& parts, const nlohmann::json::json_pointer& at) {
  uint64_t sum = 0;
  for (const nlohmann::json& p : parts) sum += p.at(at).get<uint64_t>();
  return sum;
}

/** The entries of the array at `at` of every part, ordered by their `id_field`. */
nlohmann::json ConcatById(const std::vector<nlohmann::json>& parts,
                          const nlohmann::json::json_pointer& at, const char* id_field) {
  std::vector<nlohmann::json> all;
  for (const nlohmann::json& p : parts) {
    for (const nlohmann::json& e : p.at(at)) all.push_back(e);
  }
  std::stable_sort(all.begin(), all.end(), [&](const nlohmann::json& a, const nlohmann::json& b) {
    return a.at(id_field).get<uint64_t>() < b.at(id_field).get<uint64_t>();
  });
  return nlohmann::json(all);
}

}  // namespace

nlohmann::json MergeStats(const std::vector<nlohmann::json>& parts) {
  using Ptr = nlohmann::json::json_pointer;
  nlohmann::json merged = parts.at(0);
  for (const char* counter :
       {"/events", "/packets_delivered", "/fabric/frames_routed", "/fabric/frames_duplicated",
        "/fabric/frames_reordered", "/fabric/frames_corrupted", "/host_memory/reserved_bytes",
        "/host_memory/touched_bytes", "/host_memory/touched_peak_bytes"}) {
    merged[Ptr(counter)] = SumOf(parts, Ptr(counter));
  }
  // Every reason but duplicate deliveries, which the merged verdict already counts in full.
  for (const auto& [reason, count] : parts[0].at("drops").items()) {
    if (reason == "duplicate_delivery") continue;
    merged["drops"][reason] = SumOf(parts, Ptr("/drops/" + reason));
  }
  nlohmann::json& per_path = merged["fabric"]["frames_per_path"];
  for (size_t plane = 0; plane < per_path.size(); ++plane) {
    per_path[plane] = SumOf(parts, Ptr("/fabric/frames_per_path/" + std::to_string(plane)));
  }
  uint64_t port_peak = 0;
  double wall_s = 0;
  for (const nlohmann::json& p : parts) {
    port_peak = std::max(port_peak, p.at("fabric").at("port_buffer_peak_bytes").get<uint64_t>());
    wall_s = std::max(wall_s, p.at("wall_time_s").get<double>());
  }
  merged["fabric"]["port_buffer_peak_bytes"] = port_peak;
  merged["adapters"] = ConcatById(parts, Ptr("/adapters"), "adapter");
  merged["host_memory"]["nodes"] = ConcatById(parts, Ptr("/host_memory/nodes"), "node");
  merged["wall_time_s"] = wall_s;
  merged["wall_events_per_second"] =
      wall_s > 0 ? static_cast<double>(merged["events"].get<uint64_t>()) / wall_s : 0;
  merged["partitions"] = parts.size();
  return merged;
}

nlohmann::json SumCounters(const std::vector<nlohmann::json>& parts) {
  nlohmann::json sum = parts.at(0);
  if (sum.is_number_unsigned()) {
    uint64_t total = 0;
    for (const nlohmann::json& p : parts) total += p.get<uint64_t>();
    return total;
  }
  if (!sum.is_structured()) return sum;
  std::vector<nlohmann::json> column(parts.size());
  if (sum.is_object()) {
    for (auto& [key, value] : sum.items()) {
      for (size_t i = 0; i < parts.size(); ++i) column[i] = parts[i].at(key);
      value = SumCounters(column);
    }
  } else {
    for (size_t at = 0; at < sum.size(); ++at) {
      for (size_t i = 0; i < parts.size(); ++i) column[i] = parts[i].at(at);
      sum[at] = SumCounters(column);
    }
  }
  return sum;
}

}  // namespace nicsim::sim::distrib
