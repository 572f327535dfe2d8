// SPDX-License-Identifier: Apache-2.0
// Markdown rendering of the parameter table.
#include "sim/config/param_docs.h"

#include <fmt/format.h>

#include <limits>

#include "base/units.h"

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
      return fmt::format("[0, {}]", FormatSize(static_cast<uint64_t>(spec.max)));
    case ParamType::kRate:
      return ">= " + FormatRate(kMinRateBytesPerSec);
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

}  // namespace nicsim::sim
