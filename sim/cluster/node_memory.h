// SPDX-License-Identifier: Apache-2.0
// How much host memory a simulated node is given: every window's FIFOs (two spare pages
// each), a megabyte for the driver's other buffers, and with RDMA the node's TCE tables
// (entries plus a page per table) and the task's memory. A cluster's node and a wire node
// are sized by the same rule.
#pragma once

#include <cstdint>

#include "abi/rdma.h"
#include "driver/adapter_driver.h"
#include "driver/tce_tables.h"

namespace nicsim::sim {

struct NodeMemory {
  uint32_t line_bytes = 128;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
  /** Windows open on the node, over all its adapters. */
  uint32_t windows = 1;
  /** RDMA host memory for the task (0: no RDMA, and no TCE tables). */
  uint64_t rdma_host_bytes = 0;
  driver::TceConfig tce;
};

inline uint64_t NodeHostBytes(const NodeMemory& m) {
  driver::WindowRequest window;
  window.recv_frames = m.recv_frames;
  window.send_slots = m.send_slots;
  const uint64_t per_window = driver::WindowHostBytes(window, m.line_bytes) + 2 * 4096;
  uint64_t bytes = per_window * m.windows + (1u << 20);
  if (m.rdma_host_bytes > 0) {
    const driver::TceConfig& t = m.tce;
    const uint64_t entries = uint64_t{t.tables_16m} * t.entries_16m +
                             uint64_t{t.tables_64k} * t.entries_64k +
                             uint64_t{t.tables_4k} * t.entries_4k;
    const uint64_t tables = uint64_t{t.tables_16m + t.tables_64k + t.tables_4k};
    bytes += entries * sizeof(abi::TceEntry) + tables * 4096 + m.rdma_host_bytes;
  }
  return bytes;
}

}  // namespace nicsim::sim
