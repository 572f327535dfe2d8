// SPDX-License-Identifier: Apache-2.0
// Set-up and expectations shared by the RDMA validation tests: the cluster, request flags,
// exact drop counters, the LMT as the microcode has it, window state and rCxt state.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "tests/e2e/rdma_harness.h"

namespace nicsim::sim {

/** Request flags asking for a completion on both sides. */
constexpr uint8_t kBoth = abi::kReqNotifyInitiator | abi::kReqNotifyTarget;
/** What target buffers hold before anything lands. */
constexpr uint8_t kFill = 0x5A;

/** A cluster of `nodes` nodes, one adapter each, with `windows` windows per adapter. */
inline ClusterConfig Nodes(uint32_t nodes, uint32_t windows = 1) {
  ClusterConfig c;
  c.backend = BackendKind::kFunc;
  c.nodes = nodes;
  c.windows_per_adapter = windows;
  return c;
}

/**
 * Every drop counter of `adapter` grew by exactly `expected` since `before` (reasons not
 * listed: by zero).
 */
inline void ExpectDropsSince(RdmaHarness& h, uint32_t adapter, const fw::Counters& before,
                             const std::map<fw::DropReason, uint64_t>& expected) {
  for (size_t i = 0; i < static_cast<size_t>(fw::DropReason::kCount); ++i) {
    const auto reason = static_cast<fw::DropReason>(i);
    const auto it = expected.find(reason);
    const uint64_t want = it == expected.end() ? 0 : it->second;
    EXPECT_EQ(h.Drops(adapter, reason) - before.drop(reason), want)
        << "drop reason " << fw::ToString(reason) << " on adapter " << adapter;
  }
}

/** Every drop counter of `adapter` is exactly `expected` (reasons not listed: zero). */
inline void ExpectDrops(RdmaHarness& h, uint32_t adapter,
                        const std::map<fw::DropReason, uint64_t>& expected = {}) {
  ExpectDropsSince(h, adapter, fw::Counters{}, expected);
}

/** The window's LMT as the microcode has it (its channel buffer written back first). */
inline abi::LmtEntry Lmt(RdmaHarness& h, uint32_t adapter, uint32_t window = 0) {
  driver::AdapterDriver& drv = h.cluster().driver(adapter);
  drv.FlushLmt(window);
  return drv.ReadLmt(window);  // the read orders after the flush
}

inline void ExpectWindowOpen(RdmaHarness& h, uint32_t adapter, uint32_t window = 0) {
  const abi::LmtEntry lmt = Lmt(h, adapter, window);
  EXPECT_EQ(lmt.state, static_cast<uint32_t>(abi::WindowState::kOpen))
      << "adapter " << adapter << " window " << window;
  EXPECT_EQ(lmt.address_exceptions, 0u) << "adapter " << adapter << " window " << window;
}

inline void ExpectWindowFatal(RdmaHarness& h, uint32_t adapter, uint32_t exceptions,
                              uint32_t window = 0) {
  const abi::LmtEntry lmt = Lmt(h, adapter, window);
  EXPECT_EQ(lmt.state, static_cast<uint32_t>(abi::WindowState::kFatal))
      << "adapter " << adapter << " window " << window;
  EXPECT_EQ(lmt.address_exceptions, exceptions) << "adapter " << adapter << " window " << window;
}

inline uint8_t RcxtState(RdmaHarness& h, uint32_t adapter, uint32_t ref) {
  return h.cluster().rcxts(adapter).Read(abi::RcxtIndex(ref)).state;
}

constexpr uint8_t State(abi::RcxtState s) { return static_cast<uint8_t>(s); }

/** `len` bytes of `value` (a buffer's expected contents). */
inline std::vector<uint8_t> Filled(uint64_t len, uint8_t value = kFill) {
  return std::vector<uint8_t>(len, value);
}

/** The same PVO with its key bit 0 flipped: no TCE of the registration accepts it. */
inline uint64_t WrongKey(uint64_t pvo) {
  return abi::MakePvo(abi::PvoKey(pvo) ^ 1, abi::PvoTable(pvo), abi::PvoOffset(pvo));
}

}  // namespace nicsim::sim
