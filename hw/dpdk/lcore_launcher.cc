// SPDX-License-Identifier: Apache-2.0
// LcoreLauncher: checks the lcore, then hands the loop to the EAL's worker thread for it.
#include "hw/dpdk/lcore_launcher.h"

#include <rte_launch.h>
#include <rte_lcore.h>

#include <string>
#include <utility>

#include "hw/dpdk/eal.h"

namespace nicsim::hw::dpdk {

int LcoreLauncher::Trampoline(void* self) {
  static_cast<LcoreLauncher*>(self)->fn_();
  return 0;
}

Status LcoreLauncher::Usable() const {
  const std::string which = "lcore " + std::to_string(lcore_);
  if (!EalReady()) return Status::Error(which + ": the EAL is not started");
  if (lcore_ >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore_)) {
    return Status::Error(which + " is not in the EAL's core list (add it to -l, e.g. -l 0-1)");
  }
  if (lcore_ == rte_get_main_lcore()) {
    return Status::Error(which + " is the main lcore, where the host runs: pick a worker lcore");
  }
  if (launched_ || rte_eal_get_lcore_state(lcore_) != WAIT) {
    return Status::Error(which + " is busy");
  }
  return Status();
}

Status LcoreLauncher::Launch(std::function<void()> fn) {
  if (Status s = Usable(); !s.ok()) return s;
  const std::string which = "lcore " + std::to_string(lcore_);
  fn_ = std::move(fn);
  const int rc = rte_eal_remote_launch(&LcoreLauncher::Trampoline, this, lcore_);
  if (rc != 0) {
    return Status::Error(which + ": rte_eal_remote_launch failed (" + std::to_string(rc) + ")");
  }
  launched_ = true;
  return Status();
}

void LcoreLauncher::Join() {
  if (!launched_) return;
  rte_eal_wait_lcore(lcore_);
  launched_ = false;
}

}  // namespace nicsim::hw::dpdk
