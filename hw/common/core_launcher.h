// SPDX-License-Identifier: Apache-2.0
// Runs a loop on a core other than the caller's and waits for it: the adapter's poll loop on
// an EAL lcore (hw/dpdk/eal.h) or on a plain thread.
#pragma once

#include <functional>
#include <thread>

#include "base/status.h"

namespace nicsim::hw {

/** Starts one function on another core; Join waits until it has returned. */
class CoreLauncher {
 public:
  virtual ~CoreLauncher() = default;
  /** Whether Launch could start a function now; if not, why. */
  virtual Status Usable() const = 0;
  /** Starts `fn`; fails, naming why, if the core cannot take it. */
  virtual Status Launch(std::function<void()> fn) = 0;
  /** Waits until the launched function has returned (at once if none runs). */
  virtual void Join() = 0;
};

/** A std::thread, for where there are no EAL lcores (tests, verbs ports). */
class ThreadLauncher final : public CoreLauncher {
 public:
  ~ThreadLauncher() override { Join(); }
  Status Usable() const override {
    return thread_.joinable() ? Status::Error("a loop already runs on this thread") : Status();
  }
  Status Launch(std::function<void()> fn) override {
    if (Status s = Usable(); !s.ok()) return s;
    thread_ = std::thread(std::move(fn));
    return Status();
  }
  void Join() override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

}  // namespace nicsim::hw
