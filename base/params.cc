// SPDX-License-Identifier: Apache-2.0
#include "base/params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nicsim {

std::string_view ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kProbability:
      return "probability";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kDuration:
      return "duration";
    case ParamType::kRate:
      return "rate";
    case ParamType::kSize:
      return "size";
    case ParamType::kIntList:
      return "int list";
  }
  return "?";
}

std::string FormatProbability(double p) {
  std::string text = fmt::format("{}", p);  // the shortest text that reads back exactly
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string FormatIntList(const std::vector<int64_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ", "));
}

}  // namespace nicsim
