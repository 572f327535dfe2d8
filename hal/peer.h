// SPDX-License-Identifier: Apache-2.0
// The address of one window on the fabric: the adapter and the window on it.
#pragma once

#include <cstdint>

namespace nicsim::hal {

/** A window on the fabric. */
struct Peer {
  uint16_t adapter = 0;
  uint16_t window = 0;
  bool operator==(const Peer& o) const { return adapter == o.adapter && window == o.window; }
};

}  // namespace nicsim::hal
