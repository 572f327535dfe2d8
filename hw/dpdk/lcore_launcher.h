// SPDX-License-Identifier: Apache-2.0
// An EAL worker lcore as the core the adapter's poll loop runs on (rte_eal_remote_launch and
// rte_eal_wait_lcore), with the lcore's state checked first so a bad --adapter-lcore is an error.
#pragma once

#include <functional>

#include "base/status.h"
#include "hw/common/core_launcher.h"

namespace nicsim::hw::dpdk {

/** Launches on one worker lcore of the EAL (started with InitEal, e.g. `-l 0-1`). */
class LcoreLauncher final : public CoreLauncher {
 public:
  explicit LcoreLauncher(unsigned lcore) : lcore_(lcore) {}
  ~LcoreLauncher() override { Join(); }
  LcoreLauncher(const LcoreLauncher&) = delete;
  LcoreLauncher& operator=(const LcoreLauncher&) = delete;

  /**
   * Fails if the EAL is not up, or the lcore is not in its core list, is the main lcore (the
   * caller's), or is busy.
   */
  Status Usable() const override;
  /** Starts `fn` on the lcore if Usable. */
  Status Launch(std::function<void()> fn) override;
  void Join() override;

 private:
  static int Trampoline(void* self);

  unsigned lcore_;
  std::function<void()> fn_;
  bool launched_ = false;
};

}  // namespace nicsim::hw::dpdk
