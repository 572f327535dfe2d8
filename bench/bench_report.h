// SPDX-License-Identifier: Apache-2.0
// Benchmark reporting: prints a table and writes bench/results/NAME.json with figures,
// ratios against a same-run reference, and the targets those ratios must meet.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace nicsim::bench {

/** Collects one benchmark's results. */
class Report {
 public:
  Report(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}

  /** An absolute figure (machine-dependent; informative only). */
  void Figure(const std::string& key, double value) { json_["figures"][key] = value; }
  /** A ratio against the same-run reference, with the lowest value that passes. */
  void Ratio(const std::string& key, double value, double min) {
    json_["ratios"][key] = value;
    json_["targets"][key] = {{"min", min}};
    pass_ = pass_ && value >= min;
  }

  /** Prints the table, writes the JSON; returns the process exit code (1 if a target fails). */
  int Finish() {
    json_["name"] = name_;
    json_["description"] = description_;
    json_["pass"] = pass_;
    std::printf("%s: %s\n", name_.c_str(), description_.c_str());
    for (const auto& [k, v] : json_["figures"].items()) {
      std::printf("  %-28s %16.1f\n", k.c_str(), v.get<double>());
    }
    for (const auto& [k, v] : json_["ratios"].items()) {
      const double min = json_["targets"][k]["min"].get<double>();
      std::printf("  %-28s %16.4f  (target >= %g: %s)\n", k.c_str(), v.get<double>(), min,
                  v.get<double>() >= min ? "ok" : "MISSED");
    }
    const char* dir_env = std::getenv("NICSIM_BENCH_RESULTS");
    const std::filesystem::path dir = dir_env != nullptr ? dir_env : "bench/results";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::filesystem::path path = dir / (name_ + ".json");
    std::ofstream out(path);
    out << json_.dump(2) << "\n";
    std::printf("  results: %s\n", path.string().c_str());
    return pass_ ? 0 : 1;
  }

 private:
  std::string name_;
  std::string description_;
  nlohmann::json json_ = {{"figures", nlohmann::json::object()},
                          {"ratios", nlohmann::json::object()},
                          {"targets", nlohmann::json::object()}};
  bool pass_ = true;
};

}  // namespace nicsim::bench
