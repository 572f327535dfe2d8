// SPDX-License-Identifier: Apache-2.0
// Runs a loop on a core other than the caller's and waits for it: the seam through which the
// adapter's poll loop gets its own core (an EAL lcore: hw/dpdk/lcore_launcher.h).
#pragma once

#include <functional>

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

}  // namespace nicsim::hw
