// SPDX-License-Identifier: Apache-2.0
// The one table of nicsim parameters and the typed store that validates values against it.
// Every range and allowed value is checked here, so TOML files and --set flags agree.
#include "sim/config/param_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "base/text.h"
#include "base/units.h"

namespace nicsim::sim {
namespace {

/** Name -> table index; keys view the strings in the (immortal) table. */
const std::unordered_map<std::string_view, size_t>& Index() {
  static const auto* index = [] {
    auto* map = new std::unordered_map<std::string_view, size_t>();
    const std::vector<ParamSpec>& table = AllParams();
    for (size_t i = 0; i < table.size(); ++i) {
      bool inserted = map->emplace(table[i].name, i).second;
      NICSIM_CHECK(inserted, "parameter '%s' is in the table twice", table[i].name.c_str());
    }
    return map;
  }();
  return *index;
}

std::optional<size_t> IndexOf(std::string_view name) {
  auto it = Index().find(name);
  if (it == Index().end()) return std::nullopt;
  return it->second;
}

/** Index of `name`, aborting unless it exists and its type is one of `allowed`. */
size_t IndexChecked(std::string_view name, std::initializer_list<ParamType> allowed) {
  std::optional<size_t> index = IndexOf(name);
  NICSIM_CHECK(index.has_value(), "unknown parameter '%.*s'", static_cast<int>(name.size()),
               name.data());
  ParamType type = AllParams()[*index].type;
  NICSIM_CHECK(std::find(allowed.begin(), allowed.end(), type) != allowed.end(),
               "parameter '%.*s' has type %s, not %s", static_cast<int>(name.size()), name.data(),
               std::string(ParamTypeName(type)).c_str(),
               std::string(ParamTypeName(*allowed.begin())).c_str());
  return *index;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Join(const std::vector<std::string>& items, std::string_view separator,
                 std::string_view last_separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? last_separator : separator;
    out += items[i];
  }
  return out;
}

/** A duration parameter's range in words: "at most 3600s" or "in [1s, 86400s]". */
std::string AllowedDurations(const ParamSpec& spec) {
  if (spec.min == 0) return "at most " + FormatDuration(spec.max);
  return fmt::format("in [{}, {}]", FormatDuration(spec.min), FormatDuration(spec.max));
}

/** A rate parameter's allowed values in words: "at least 1B/s" or "0 or at least 1B/s". */
std::string AllowedRates(const ParamSpec& spec) {
  return (spec.min == 0 ? "0 or at least " : "at least ") + FormatRate(kMinRateBytesPerSec);
}

}  // namespace

const std::vector<ParamSpec>& AllParams() {
  static const auto* table = new std::vector<ParamSpec>(CatalogParams());
  return *table;
}

const ParamSpec* FindParam(std::string_view name) {
  std::optional<size_t> index = IndexOf(name);
  return index ? &AllParams()[*index] : nullptr;
}

std::string UnknownKeyMessage(std::string_view name) {
  std::string message = fmt::format("unknown key '{}'", Printable(name));
  const ParamSpec* best = nullptr;
  size_t best_distance = 3;  // suggest only within edit distance 2
  for (const ParamSpec& spec : AllParams()) {
    size_t distance = EditDistance(name, spec.name);
    if (distance < best_distance) {
      best = &spec;
      best_distance = distance;
    }
  }
  if (best != nullptr) message += fmt::format("; did you mean '{}'?", best->name);
  return message;
}

Status CheckIntRange(const ParamSpec& spec, int64_t value, std::string_view label) {
  if (!spec.choices.empty()) {
    if (std::find(spec.choices.begin(), spec.choices.end(), std::to_string(value)) ==
        spec.choices.end()) {
      return Status::Error(
          fmt::format("{} must be {}, got {}", label, Join(spec.choices, ", ", " or "), value));
    }
    return Status();
  }
  if (value >= spec.min && value <= spec.max) return Status();
  if (spec.max == std::numeric_limits<int64_t>::max()) {
    return Status::Error(fmt::format("{} must be >= {}, got {}", label, spec.min, value));
  }
  return Status::Error(
      fmt::format("{} must be in [{}, {}], got {}", label, spec.min, spec.max, value));
}

ParamValues ParamValues::Defaults() {
  static const auto* defaults = [] {
    auto* values = new ParamValues();
    const std::vector<ParamSpec>& table = AllParams();
    values->values_.resize(table.size());
    for (const ParamSpec& spec : table) {
      Status status = values->SetFromText(spec.name, spec.default_value);
      NICSIM_CHECK(status.ok(), "bad default in the parameter table: %s", status.message().c_str());
    }
    return values;
  }();
  return *defaults;
}

int64_t ParamValues::Int(std::string_view name) const {
  return std::get<int64_t>(values_[IndexChecked(name, {ParamType::kInt})]);
}

double ParamValues::Probability(std::string_view name) const {
  return std::get<double>(values_[IndexChecked(name, {ParamType::kProbability})]);
}

bool ParamValues::Bool(std::string_view name) const {
  return std::get<bool>(values_[IndexChecked(name, {ParamType::kBool})]);
}

const std::string& ParamValues::String(std::string_view name) const {
  return std::get<std::string>(values_[IndexChecked(name, {ParamType::kString, ParamType::kEnum})]);
}

int64_t ParamValues::DurationPs(std::string_view name) const {
  return std::get<int64_t>(values_[IndexChecked(name, {ParamType::kDuration})]);
}

double ParamValues::RateBytesPerSec(std::string_view name) const {
  return std::get<double>(values_[IndexChecked(name, {ParamType::kRate})]);
}

uint64_t ParamValues::SizeBytes(std::string_view name) const {
  return std::get<uint64_t>(values_[IndexChecked(name, {ParamType::kSize})]);
}

const std::vector<int64_t>& ParamValues::IntList(std::string_view name) const {
  return std::get<std::vector<int64_t>>(values_[IndexChecked(name, {ParamType::kIntList})]);
}

Status ParamValues::SetInt(std::string_view name, int64_t value) {
  size_t index = IndexChecked(name, {ParamType::kInt});
  Status status = CheckIntRange(AllParams()[index], value, name);
  if (status.ok()) values_[index] = value;
  return status;
}

Status ParamValues::SetProbability(std::string_view name, double value) {
  size_t index = IndexChecked(name, {ParamType::kProbability});
  if (!(value >= 0.0 && value <= 1.0)) {  // written so NaN fails too
    return Status::Error(fmt::format("{} must be in [0, 1], got {}", name, value));
  }
  values_[index] = value;
  return Status();
}

Status ParamValues::SetBool(std::string_view name, bool value) {
  values_[IndexChecked(name, {ParamType::kBool})] = value;
  return Status();
}

Status ParamValues::SetString(std::string_view name, std::string value) {
  size_t index = IndexChecked(name, {ParamType::kString, ParamType::kEnum});
  const ParamSpec& spec = AllParams()[index];
  if (spec.type == ParamType::kEnum &&
      std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
    return Status::Error(fmt::format("{}: '{}' is not one of {}", name, Printable(value),
                                     Join(spec.choices, ", ", ", ")));
  }
  if (spec.check != nullptr) {
    Status status = spec.check(value);
    if (!status.ok()) return Status::Error(fmt::format("{}: {}", name, status.message()));
  }
  values_[index] = std::move(value);
  return Status();
}

Status ParamValues::SetDurationPs(std::string_view name, int64_t ps) {
  size_t index = IndexChecked(name, {ParamType::kDuration});
  if (ps < 0) {
    return Status::Error(fmt::format("{} must not be negative, got {}", name, FormatDuration(ps)));
  }
  const ParamSpec& spec = AllParams()[index];
  if (ps < spec.min || ps > spec.max) {
    return Status::Error(
        fmt::format("{} must be {}, got {}", name, AllowedDurations(spec), FormatDuration(ps)));
  }
  values_[index] = ps;
  return Status();
}

Status ParamValues::SetRateBytesPerSec(std::string_view name, double bytes_per_sec) {
  size_t index = IndexChecked(name, {ParamType::kRate});
  const ParamSpec& spec = AllParams()[index];
  const bool off = bytes_per_sec == 0 && spec.min == 0;
  if (!off && (!(bytes_per_sec >= kMinRateBytesPerSec) || !std::isfinite(bytes_per_sec))) {
    return Status::Error(
        fmt::format("{} must be {}, got {}", name, AllowedRates(spec), FormatRate(bytes_per_sec)));
  }
  values_[index] = bytes_per_sec;
  return Status();
}

Status ParamValues::SetSizeBytes(std::string_view name, uint64_t bytes) {
  size_t index = IndexChecked(name, {ParamType::kSize});
  const ParamSpec& spec = AllParams()[index];
  if (bytes > static_cast<uint64_t>(spec.max)) {
    return Status::Error(fmt::format("{} must be at most {}, got {}", name,
                                     FormatSize(static_cast<uint64_t>(spec.max)),
                                     FormatSize(bytes)));
  }
  values_[index] = bytes;
  return Status();
}

Status ParamValues::SetIntList(std::string_view name, std::vector<int64_t> values) {
  size_t index = IndexChecked(name, {ParamType::kIntList});
  if (values.empty()) return Status::Error(fmt::format("{} must not be empty", name));
  for (size_t i = 0; i < values.size(); ++i) {
    Status status = CheckIntRange(AllParams()[index], values[i], fmt::format("{}[{}]", name, i));
    if (!status.ok()) return status;
  }
  values_[index] = std::move(values);
  return Status();
}

Status ParamValues::SetFromText(std::string_view name, std::string_view text) {
  const ParamSpec* spec = FindParam(name);
  if (spec == nullptr) return Status::Error(UnknownKeyMessage(name));
  std::string_view trimmed = Trim(text);
  switch (spec->type) {
    case ParamType::kInt: {
      std::optional<int64_t> value = ParseInt64(trimmed);
      if (!value) {
        return Status::Error(
            fmt::format("{}: expected an integer, got '{}'", name, Printable(text)));
      }
      return SetInt(name, *value);
    }
    case ParamType::kProbability: {
      std::optional<double> value = ParseDouble(trimmed);
      if (!value) {
        return Status::Error(fmt::format("{}: expected a number, got '{}'", name, Printable(text)));
      }
      return SetProbability(name, *value);
    }
    case ParamType::kBool:
      if (trimmed == "true") return SetBool(name, true);
      if (trimmed == "false") return SetBool(name, false);
      return Status::Error(
          fmt::format("{}: expected true or false, got '{}'", name, Printable(text)));
    case ParamType::kString:
    case ParamType::kEnum:
      return SetString(name, std::string(trimmed));
    case ParamType::kDuration: {
      Result<int64_t> ps = ParseDuration(trimmed);
      if (!ps.ok()) return Status::Error(fmt::format("{}: {}", name, ps.status().message()));
      return SetDurationPs(name, ps.value());
    }
    case ParamType::kRate: {
      Result<double> rate = ParseRate(trimmed);
      if (!rate.ok()) return Status::Error(fmt::format("{}: {}", name, rate.status().message()));
      return SetRateBytesPerSec(name, rate.value());
    }
    case ParamType::kSize: {
      Result<uint64_t> bytes = ParseSize(trimmed);
      if (!bytes.ok()) return Status::Error(fmt::format("{}: {}", name, bytes.status().message()));
      return SetSizeBytes(name, bytes.value());
    }
    case ParamType::kIntList: {
      std::string_view body = trimmed;
      if (!body.empty() && body.front() == '[' && body.back() == ']') {
        body = Trim(body.substr(1, body.size() - 2));
      }
      std::vector<int64_t> values;
      while (!body.empty()) {
        size_t comma = body.find(',');
        std::optional<int64_t> value = ParseInt64(body.substr(0, comma));
        if (!value) {
          return Status::Error(fmt::format(
              "{}: expected a list of integers like [0, 16, 64], got '{}'", name, Printable(text)));
        }
        values.push_back(*value);
        if (comma == std::string_view::npos) break;
        body.remove_prefix(comma + 1);
        if (Trim(body).empty()) {  // a trailing comma leaves an empty element
          return Status::Error(fmt::format(
              "{}: expected a list of integers like [0, 16, 64], got '{}'", name, Printable(text)));
        }
      }
      return SetIntList(name, std::move(values));
    }
  }
  return Status::Error(fmt::format("{}: unsupported parameter type", name));
}

std::string ParamValues::ToText(std::string_view name) const {
  std::optional<size_t> index = IndexOf(name);
  NICSIM_CHECK(index.has_value(), "unknown parameter '%.*s'", static_cast<int>(name.size()),
               name.data());
  const Value& value = values_[*index];
  switch (AllParams()[*index].type) {
    case ParamType::kInt:
      return std::to_string(std::get<int64_t>(value));
    case ParamType::kProbability:
      return fmt::format("{}", std::get<double>(value));  // shortest text that reads back exactly
    case ParamType::kBool:
      return std::get<bool>(value) ? "true" : "false";
    case ParamType::kString:
    case ParamType::kEnum:
      return std::get<std::string>(value);
    case ParamType::kDuration:
      return FormatDuration(std::get<int64_t>(value));
    case ParamType::kRate:
      return FormatRate(std::get<double>(value));
    case ParamType::kSize:
      return FormatSize(std::get<uint64_t>(value));
    case ParamType::kIntList:
      return FormatIntList(std::get<std::vector<int64_t>>(value));
  }
  return "";
}

std::vector<std::string_view> ParamValues::Names() {
  std::vector<std::string_view> names;
  for (const ParamSpec& spec : AllParams()) names.push_back(spec.name);
  return names;
}

}  // namespace nicsim::sim
