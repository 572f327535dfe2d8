// SPDX-License-Identifier: Apache-2.0
// A table of counters (a struct with Fields(), base/counter_table.h) as a stats.json object:
// each counter under its name.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nicsim::sim {

/** Every counter of `c` under its stats.json name. */
template <class Counters>
nlohmann::json CountersJson(const Counters& c) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : Counters::Fields()) out[std::string(f.name)] = c.*f.member;
  return out;
}

}  // namespace nicsim::sim
