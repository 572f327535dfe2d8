// SPDX-License-Identifier: Apache-2.0
// A workload's result table as CSV, written next to stats.json for spreadsheets and plots.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nicsim::sim {

/**
 * CSV of a workload's results: one row per entry of results["table"] when it is a list of
 * objects (columns from the first row, in order), else one row of the scalar fields.
 */
std::string WorkloadCsv(const nlohmann::json& results);

}  // namespace nicsim::sim
