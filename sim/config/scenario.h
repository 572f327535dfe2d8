// SPDX-License-Identifier: Apache-2.0
// Scenario loading: a TOML file (or built-in text) plus --set flags become validated ParamValues.
// Every error names the source, line, column and key: "run.toml:3:9: nodes must be in [1, 4096]".
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "sim/config/param_table.h"

namespace nicsim::sim {

/** A named set of parameter values and where it came from. */
struct Scenario {
  /** The TOML `name` key, or the source's file name without directory and ".toml". */
  std::string name;
  /** A file path or "builtin:<name>"; used in messages. */
  std::string source;
  /** Every parameter: defaults overridden by the TOML and then by --set flags. */
  ParamValues params;
  /** The TOML `description` key, or empty. */
  std::string description;
  /**
   * Where each parameter the text or a --set flag gave was written: "run.toml:3:9" or
   * "--set fabric.paths=2" (the last one that set it).
   */
  std::map<std::string, std::string, std::less<>> origins;
};

/**
 * Parses TOML text; `source_name` is used in messages (a file path or "builtin:default").
 * Tables flatten to dotted names: `[fabric] loss = 0.1` and `fabric.loss = 0.1` both set
 * "fabric.loss". Top-level `name` and `description` strings are metadata, not parameters.
 * Numbers given for durations mean nanoseconds, for rates bytes per second, for sizes bytes.
 * On error, the message is "source:line:col: message" for the first problem in the text.
 */
Result<Scenario> ParseScenario(std::string_view toml_text, std::string source_name);

/** The largest scenario file LoadScenarioFile reads (4 MiB; real ones are a few KiB). */
inline constexpr size_t kMaxScenarioFileBytes = size_t{4} << 20;

/**
 * Reads and parses a file; a missing or unreadable file is "path: cannot open file: <why>", one
 * above kMaxScenarioFileBytes "path: too large for a scenario file (more than 4MiB)".
 */
Result<Scenario> LoadScenarioFile(const std::string& path);

/**
 * Applies one "key=value" from --set (value as SetFromText takes it). Errors read like
 * "--set fabric.loss=2: fabric.loss must be in [0, 1], got 2"; on error nothing changes.
 */
Status ApplySetFlag(Scenario& scenario, std::string_view assignment);

/**
 * Some errors show only when values are combined (a plane beyond fabric.paths, say); their
 * messages start with the parameter at fault. This puts where that parameter was written in
 * front: "run.toml:4:10: fabric.faults: rule 1 (...)". Other messages come back as they were.
 */
Status LocateParamError(const Scenario& scenario, const Status& status);

}  // namespace nicsim::sim
