// SPDX-License-Identifier: Apache-2.0
// The parameter table: every knob nicsim has, with type, default (with units), range and
// description, plus ParamValues, the typed and validated values a run is configured with.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/params.h"
#include "base/status.h"

namespace nicsim::sim {

/** Every parameter nicsim knows, in one table (the order `nicsim params` prints). */
const std::vector<ParamSpec>& AllParams();

/**
 * Every component's declared parameters, in table order: the rows of AllParams(). The table
 * lists them without including them: the program defines this function
 * (app/param_catalog.cc), the one place that knows every component with parameters.
 */
std::vector<ParamSpec> CatalogParams();

/** The table row for `name`, or nullptr when there is no such parameter. */
const ParamSpec* FindParam(std::string_view name);

/**
 * The message for a key that is not a parameter: "unknown key 'fabric.los'", followed by
 * "; did you mean 'fabric.loss'?" when a parameter is within edit distance 2.
 */
std::string UnknownKeyMessage(std::string_view name);

/**
 * Checks one integer against `spec`'s allowed values and range; `label` names it in the
 * message ("nodes", "pingpong.sizes[2]"): "nodes must be in [1, 4096], got 0".
 */
Status CheckIntRange(const ParamSpec& spec, int64_t value, std::string_view label);

/**
 * Typed, validated values for every parameter (defaults filled in).
 * Getters and typed setters abort (NICSIM_CHECK) on an unknown name or the wrong type: those
 * are programming errors. Bad values are user errors and come back as a Status naming the key.
 */
class ParamValues : public ParamSource {
 public:
  /** Every parameter at its table default. */
  static ParamValues Defaults();

  /** kInt value. */
  int64_t Int(std::string_view name) const override;
  /** kProbability value, in [0, 1]. */
  double Probability(std::string_view name) const override;
  /** kBool value. */
  bool Bool(std::string_view name) const override;
  /** kString or kEnum value. */
  const std::string& String(std::string_view name) const override;
  /** kDuration value in picoseconds. */
  int64_t DurationPs(std::string_view name) const override;
  /** kRate value in bytes per second. */
  double RateBytesPerSec(std::string_view name) const override;
  /** kSize value in bytes. */
  uint64_t SizeBytes(std::string_view name) const override;
  /** kIntList value. */
  const std::vector<int64_t>& IntList(std::string_view name) const override;

  /** Sets a kInt after checking its range and allowed values. */
  Status SetInt(std::string_view name, int64_t value);
  /** Sets a kProbability after checking it is in [0, 1]. */
  Status SetProbability(std::string_view name, double value);
  /** Sets a kBool. */
  Status SetBool(std::string_view name, bool value);
  /** Sets a kString, or a kEnum after checking it is one of the choices. */
  Status SetString(std::string_view name, std::string value);
  /** Sets a kDuration; it must not be negative and must be in its range. */
  Status SetDurationPs(std::string_view name, int64_t ps);
  /** Sets a kRate; it must be finite and at least kMinRateBytesPerSec. */
  Status SetRateBytesPerSec(std::string_view name, double bytes_per_sec);
  /** Sets a kSize after checking its range. */
  Status SetSizeBytes(std::string_view name, uint64_t bytes);
  /** Sets a kIntList after checking it is non-empty and every element is in range. */
  Status SetIntList(std::string_view name, std::vector<int64_t> values);

  /**
   * Sets from text (the --set path): validates type and range; the error message names the
   * key. Durations and rates need a unit ("300ns", "2GB/s"); lists are "[0, 16]" or "0,16".
   * An unknown name is a user error here, reported with UnknownKeyMessage().
   */
  Status SetFromText(std::string_view name, std::string_view text);

  /** Canonical text of a value (for the stats.json "params" echo): deterministic, and
   *  SetFromText(name, ToText(name)) restores exactly the same value. */
  std::string ToText(std::string_view name) const;

  /** All parameter names in table order. */
  static std::vector<std::string_view> Names();

  /** True when every parameter has the same value. */
  friend bool operator==(const ParamValues& a, const ParamValues& b) {
    return a.values_ == b.values_;
  }
  friend bool operator!=(const ParamValues& a, const ParamValues& b) { return !(a == b); }

 private:
  /** Storage per table row: int64_t for kInt and kDuration, double for kProbability and kRate. */
  using Value = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<int64_t>>;

  ParamValues() = default;

  std::vector<Value> values_;  // indexed like AllParams()
};

}  // namespace nicsim::sim
