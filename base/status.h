// SPDX-License-Identifier: Apache-2.0
// Status and Result<T>: control-path errors as values with a message, never exceptions.
// A Status carries the process exit code its error maps to (2 for bad input).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "base/check.h"

namespace nicsim {

/** Outcome of a control-path operation: ok, or an error message. */
class Status {
 public:
  /** Exit code for bad input (files, flags): the contract in DESIGN.md. */
  static constexpr int kBadInputExit = 2;

  Status() = default;
  /** An error; `message` should name the file, line and field where they exist. */
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

/** A value or an error Status. */
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    NICSIM_CHECK(!status_.ok(), "a Result needs a value or an error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() {
    NICSIM_CHECK(ok(), "value() on error: %s", status_.message().c_str());
    return *value_;
  }
  const T& value() const {
    NICSIM_CHECK(ok(), "value() on error: %s", status_.message().c_str());
    return *value_;
  }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace nicsim
