// SPDX-License-Identifier: Apache-2.0
// Markdown rendering of the parameter table.
#include "sim/config/param_docs.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "base/units.h"
#include "sim/config/presets.h"

namespace nicsim::sim {
namespace {

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string Range(int64_t min, int64_t max) {
  if (max == std::numeric_limits<int64_t>::max()) return fmt::format(">= {}", min);
  return fmt::format("[{}, {}]", min, max);
}

}  // namespace

std::string AllowedText(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::kInt:
      return spec.choices.empty() ? Range(spec.min, spec.max) : Join(spec.choices, " or ");
    case ParamType::kProbability:
      return "[0, 1]";
    case ParamType::kBool:
      return "true \\| false";
    case ParamType::kEnum:
      return Join(spec.choices, " \\| ");
    case ParamType::kString:
      return spec.check == nullptr ? "any" : "see description";
    case ParamType::kDuration:
      return fmt::format("[{}, {}]", FormatDuration(spec.min), FormatDuration(spec.max));
    case ParamType::kSize:
      if (spec.max == std::numeric_limits<int64_t>::max()) return ">= 0";
      return fmt::format("[{}, {}]",
                         spec.min <= 0 ? "0" : FormatSize(static_cast<uint64_t>(spec.min)),
                         FormatSize(static_cast<uint64_t>(spec.max)));
    case ParamType::kRate:
      return (spec.min == 0 ? "0 (off) or >= " : ">= ") + FormatRate(kMinRateBytesPerSec);
    case ParamType::kIntList:
      return "each " + Range(spec.min, spec.max);
  }
  return "";
}

std::string ParamsMarkdownTable() {
  std::string out = "| Name | Type | Default | Allowed | Description |\n|---|---|---|---|---|\n";
  for (const ParamSpec& p : AllParams()) {
    // An empty default is shown the way TOML writes it.
    out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", p.name, ParamTypeName(p.type),
                       p.default_value.empty() ? "\"\"" : p.default_value, AllowedText(p),
                       p.description);
  }
  return out;
}

std::string PresetsMarkdownTable() {
  std::vector<std::string> presets;
  for (const ParamSpec& p : AllParams()) {
    if (p.name == "preset") presets = p.choices;
  }
  std::vector<std::string_view> keys;
  for (const std::string& preset : presets) {
    for (const auto& [key, value] : *PresetValues(preset)) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  std::string out = "| Key |";
  std::string rule = "|---|";
  for (const std::string& preset : presets) {
    out += fmt::format(" `{}` |", preset);
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const std::string_view key : keys) {
    out += fmt::format("| `{}` |", key);
    for (const std::string& preset : presets) {
      const auto& values = *PresetValues(preset);
      const auto it = std::find_if(values.begin(), values.end(),
                                   [key](const auto& kv) { return kv.first == key; });
      out += it == values.end() ? std::string(" (unchanged) |") : fmt::format(" {} |", it->second);
    }
    out += "\n";
  }
  return out;
}

}  // namespace nicsim::sim
