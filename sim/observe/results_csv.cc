// SPDX-License-Identifier: Apache-2.0
// CSV rendering of workload results. Values are written as JSON scalars (numbers as JSON
// prints them, strings quoted), so the file reads back exactly.
#include "sim/observe/results_csv.h"

#include <vector>

namespace nicsim::sim {
namespace {

std::string Cell(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
  return v.dump();
}

std::string Rows(const std::vector<std::string>& columns, const nlohmann::json& rows) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i];
  out += "\n";
  for (const nlohmann::json& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      out += (i ? "," : "") + (row.contains(columns[i]) ? Cell(row[columns[i]]) : std::string());
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string WorkloadCsv(const nlohmann::json& results) {
  if (results.contains("table") && results["table"].is_array() && !results["table"].empty() &&
      results["table"][0].is_object()) {
    std::vector<std::string> columns;
    for (const auto& [key, value] : results["table"][0].items()) columns.push_back(key);
    return Rows(columns, results["table"]);
  }
  std::vector<std::string> columns;
  nlohmann::json row = nlohmann::json::object();
  for (const auto& [key, value] : results.items()) {
    if (value.is_primitive()) {
      columns.push_back(key);
      row[key] = value;
    }
  }
  return Rows(columns, nlohmann::json::array({row}));
}

}  // namespace nicsim::sim
