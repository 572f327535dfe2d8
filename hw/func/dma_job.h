// SPDX-License-Identifier: Apache-2.0
// One DMA as the adapter's DMA engine sees it, from the microcode's request to its
// completion; the functional engine and hw/systemc's TLM engine both move these.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/platform.h"

namespace nicsim::hw::func {

/** One DMA as the engine sees it. */
struct DmaJob {
  bool to_host = true;
  uint64_t host_addr = 0;
  /** To host: the bytes to write (gathered at issue). */
  std::vector<uint8_t> data;
  /** From host: where the bytes land and how many. */
  uint8_t* dst = nullptr;
  uint32_t len = 0;
  uint32_t room = 0;
  fw::TaskId tag = fw::kNoTask;
};

}  // namespace nicsim::hw::func
