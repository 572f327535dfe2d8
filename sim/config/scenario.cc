// SPDX-License-Identifier: Apache-2.0
// Scenario loading: parses TOML with toml++ (its exceptions are caught here and never escape),
// flattens tables into dotted parameter names and reports the first error with its position.
#include "sim/config/scenario.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "sim/config/presets.h"
#include "sim/config/toml_key_depth.h"
#include "base/text.h"
#include "base/units.h"

namespace nicsim::sim {
namespace {

/** Name of a TOML value's type for "expected X, got Y" messages. */
std::string_view NodeTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

/** What a parameter of `type` accepts in TOML, for type errors. */
std::string_view ExpectedTomlType(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "an integer";
    case ParamType::kProbability:
      return "a number";
    case ParamType::kBool:
      return "a boolean";
    case ParamType::kString:
    case ParamType::kEnum:
      return "a string";
    case ParamType::kDuration:
      return "a duration like \"300ns\" or a number of nanoseconds";
    case ParamType::kRate:
      return "a rate like \"2GB/s\" or a number of bytes per second";
    case ParamType::kSize:
      return "a size like \"64KiB\" or a number of bytes";
    case ParamType::kIntList:
      return "an array of integers";
  }
  return "a value";
}

/** The scenario name implied by a source: "dir/lossy.toml" -> "lossy", "builtin:x" -> "x". */
std::string NameFromSource(std::string_view source) {
  size_t cut = source.find_last_of("/:");
  if (cut != std::string_view::npos) source.remove_prefix(cut + 1);
  constexpr std::string_view kExtension = ".toml";
  if (source.size() > kExtension.size() &&
      source.substr(source.size() - kExtension.size()) == kExtension) {
    source.remove_suffix(kExtension.size());
  }
  return std::string(source);
}

/** True if some parameter lives under the table `name` ("fabric" for "fabric.loss"). */
bool IsTablePrefix(const std::string& name) {
  for (const ParamSpec& spec : AllParams()) {
    if (spec.name.size() > name.size() && spec.name.compare(0, name.size(), name) == 0 &&
        spec.name[name.size()] == '.') {
      return true;
    }
  }
  return false;
}

/** The most tables a parameter's name nests in ("fabric.loss": 1). */
size_t DeepestParam() {
  static const size_t deepest = [] {
    size_t most = 0;
    for (const ParamSpec& spec : AllParams()) {
      most = std::max<size_t>(most, std::count(spec.name.begin(), spec.name.end(), '.'));
    }
    return most;
  }();
  return deepest;
}

/** Walks a parsed document, applying each value and keeping the earliest error. */
class Loader {
 public:
  Loader(std::string source, Scenario* scenario)
      : source_(std::move(source)), scenario_(scenario) {}

  /** Visits every key of `table`; `prefix` is the dotted path of the table ("" at the top),
   *  `depth` the tables it is nested in. */
  void Walk(const toml::table& table, const std::string& prefix, size_t depth = 0) {
    // A preset fills in values first, so every other key in the file overrides it.
    if (prefix.empty()) {
      if (const toml::node* preset = table.get("preset")) ApplyPresetNode(*preset);
    }
    for (const auto& [key, node] : table) {
      std::string name =
          prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      if (prefix.empty() && name == "preset") continue;
      if (prefix.empty() && (name == "name" || name == "description")) {
        ApplyMetadata(name, node);
        continue;
      }
      if (const ParamSpec* spec = FindParam(name)) {
        const toml::source_position& at = node.source().begin;
        scenario_->origins[name] = fmt::format("{}:{}:{}", source_, at.line, at.column);
        Apply(*spec, node);
      } else if (const toml::table* sub = node.as_table();
                 sub && depth < DeepestParam() && (!sub->empty() || IsTablePrefix(name))) {
        // Keys inside an unknown table are reported one by one, with suggestions (no deeper
        // than a parameter can be: a table nested without end is reported where it passes
        // that depth).
        Walk(*sub, name, depth + 1);
      } else if (Precedes(key.source().begin)) {
        // Only a key before the earliest error so far gets its (costly) suggestion: a file of
        // a million unknown keys is rejected as fast as it is parsed.
        AddError(key.source(), UnknownKeyMessage(name));
      }
    }
  }

  /** The earliest error as "source:line:col: message", if there was one. */
  std::optional<Status> error() const {
    if (!error_) return std::nullopt;
    return Status::Error(fmt::format("{}:{}:{}: {}", source_, error_->position.line,
                                     error_->position.column, error_->message));
  }

 private:
  struct Located {
    toml::source_position position;
    std::string message;
  };

  /** True if an error at `at` would come before every error found so far. */
  bool Precedes(const toml::source_position& at) const {
    return !error_ || at.line < error_->position.line ||
           (at.line == error_->position.line && at.column < error_->position.column);
  }

  void AddError(const toml::source_region& where, std::string message) {
    // Keep the first error in document order (tables iterate by key, not position).
    if (Precedes(where.begin)) error_ = Located{where.begin, std::move(message)};
  }

  void AddStatus(const toml::node& node, const Status& status) {
    if (!status.ok()) AddError(node.source(), status.message());
  }

  void ApplyPresetNode(const toml::node& node) {
    const toml::value<std::string>* text = node.as_string();
    if (text == nullptr) {
      AddError(node.source(), fmt::format("preset: expected a string, got {}", NodeTypeName(node)));
      return;
    }
    AddStatus(node, ApplyPreset(scenario_->params, text->get()));
  }

  void ApplyMetadata(const std::string& name, const toml::node& node) {
    const toml::value<std::string>* text = node.as_string();
    if (text == nullptr) {
      AddError(node.source(),
               fmt::format("{}: expected a string, got {}", name, NodeTypeName(node)));
      return;
    }
    (name == "name" ? scenario_->name : scenario_->description) = text->get();
  }

  /** A number written for a unit-bearing parameter, as text with the default unit appended. */
  static std::optional<std::string> NumberWithUnit(const toml::node& node, ParamType type) {
    std::string number;
    if (const toml::value<int64_t>* i = node.as_integer()) {
      number = std::to_string(i->get());
    } else if (const toml::value<double>* f = node.as_floating_point()) {
      number = fmt::format("{}", f->get());
    } else {
      return std::nullopt;
    }
    switch (type) {
      case ParamType::kDuration:
        return number + "ns";
      case ParamType::kRate:
        return number + "B/s";
      default:
        return number + "B";
    }
  }

  void Apply(const ParamSpec& spec, const toml::node& node) {
    ParamValues& params = scenario_->params;
    const std::string& name = spec.name;
    switch (spec.type) {
      case ParamType::kInt:
        if (const toml::value<int64_t>* i = node.as_integer()) {
          return AddStatus(node, params.SetInt(name, i->get()));
        }
        break;
      case ParamType::kProbability:
        if (const toml::value<int64_t>* i = node.as_integer()) {
          return AddStatus(node, params.SetProbability(name, static_cast<double>(i->get())));
        }
        if (const toml::value<double>* f = node.as_floating_point()) {
          return AddStatus(node, params.SetProbability(name, f->get()));
        }
        break;
      case ParamType::kBool:
        if (const toml::value<bool>* b = node.as_boolean()) {
          return AddStatus(node, params.SetBool(name, b->get()));
        }
        break;
      case ParamType::kString:
      case ParamType::kEnum:
        if (const toml::value<std::string>* s = node.as_string()) {
          return AddStatus(node, params.SetString(name, s->get()));
        }
        break;
      case ParamType::kDuration:
      case ParamType::kRate:
      case ParamType::kSize:
        if (const toml::value<std::string>* s = node.as_string()) {
          return AddStatus(node, params.SetFromText(name, s->get()));
        }
        if (std::optional<std::string> text = NumberWithUnit(node, spec.type)) {
          return AddStatus(node, params.SetFromText(name, *text));
        }
        break;
      case ParamType::kIntList:
        if (const toml::array* array = node.as_array()) return ApplyIntList(spec, *array);
        break;
    }
    AddError(node.source(), fmt::format("{}: expected {}, got {}", name,
                                        ExpectedTomlType(spec.type), NodeTypeName(node)));
  }

  /** Checks each element where it is written, so errors point at the bad element. */
  void ApplyIntList(const ParamSpec& spec, const toml::array& array) {
    std::vector<int64_t> values;
    for (size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = array[i];
      std::string label = fmt::format("{}[{}]", spec.name, i);
      const toml::value<int64_t>* value = element.as_integer();
      if (value == nullptr) {
        AddError(element.source(),
                 fmt::format("{}: expected an integer, got {}", label, NodeTypeName(element)));
        return;
      }
      Status status = CheckIntRange(spec, value->get(), label);
      if (!status.ok()) return AddStatus(element, status);
      values.push_back(value->get());
    }
    AddStatus(array, scenario_->params.SetIntList(spec.name, std::move(values)));
  }

  std::string source_;
  Scenario* scenario_;
  std::optional<Located> error_;
};

}  // namespace

Result<Scenario> ParseScenario(std::string_view toml_text, std::string source_name) {
  Scenario scenario{NameFromSource(source_name), source_name, ParamValues::Defaults(), "", {}};
  if (std::optional<std::string> deep = FindTooDeepKey(toml_text)) {
    return Status::Error(fmt::format("{}:{}", source_name, *deep));
  }
  toml::table document;
  try {
    document = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    return Status::Error(fmt::format("{}:{}:{}: {}", source_name, e.source().begin.line,
                                     e.source().begin.column, e.description()));
  } catch (const std::exception& e) {
    return Status::Error(fmt::format("{}: cannot parse: {}", source_name, e.what()));
  }
  Loader loader(source_name, &scenario);
  loader.Walk(document, "");
  if (std::optional<Status> error = loader.error()) return *error;
  return scenario;
}

Result<Scenario> LoadScenarioFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
  }
  std::string text;
  char buffer[8192];
  size_t got = 0;
  // Read one byte past the limit at most: a huge file (or an endless pipe) is refused at once.
  while (text.size() <= kMaxScenarioFileBytes &&
         (got = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
    text.append(buffer, got);
  }
  // fread on a directory fails with EISDIR; report it like any other unreadable file.
  int read_errno = std::ferror(file) ? (errno != 0 ? errno : EIO) : 0;
  std::fclose(file);
  if (read_errno != 0) {
    return Status::Error(fmt::format("{}: cannot read file: {}", path, std::strerror(read_errno)));
  }
  if (text.size() > kMaxScenarioFileBytes) {
    return Status::Error(fmt::format("{}: too large for a scenario file (more than {})", path,
                                     FormatSize(kMaxScenarioFileBytes)));
  }
  return ParseScenario(text, path);
}

Status ApplySetFlag(Scenario& scenario, std::string_view assignment) {
  size_t equals = assignment.find('=');
  if (equals == std::string_view::npos) {
    return Status::Error(fmt::format("--set {}: expected key=value", assignment));
  }
  std::string_view key = assignment.substr(0, equals);
  while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
  while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
  std::string_view value = assignment.substr(equals + 1);
  Status status = key == "preset" ? ApplyPreset(scenario.params, value)
                                  : scenario.params.SetFromText(key, value);
  if (!status.ok()) {
    return Status::Error(fmt::format("--set {}: {}", Printable(assignment), status.message()));
  }
  scenario.origins[std::string(key)] = fmt::format("--set {}", Printable(assignment));
  return Status();
}

Status LocateParamError(const Scenario& scenario, const Status& status) {
  if (status.ok()) return status;
  const std::string& message = status.message();
  // "fabric.path_down[0]: ..." and "fabric.faults: ..." both name fabric.*.
  const std::string_view name = std::string_view(message).substr(0, message.find_first_of(":[ "));
  const auto origin = scenario.origins.find(name);
  if (origin == scenario.origins.end()) return status;
  return Status::Error(fmt::format("{}: {}", origin->second, message));
}

}  // namespace nicsim::sim
