// SPDX-License-Identifier: Apache-2.0
#include "hal/task_host.h"

#include "abi/rdma.h"

namespace nicsim::hal {

Result<uint64_t> TaskHost::Map(uint64_t bytes) {
  const uint32_t shift = bytes >= (uint64_t{16} << 20) ? abi::kPageShift16M : abi::kPageShift64K;
  return space_.Map(bytes, shift);
}

}  // namespace nicsim::hal
