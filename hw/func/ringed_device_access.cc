// SPDX-License-Identifier: Apache-2.0
// MMIO through a lock-free ring: the host posts writes and waits for read answers; the
// adapter's poll loop applies them in the order they were posted.
#include "hw/func/ringed_device_access.h"

#include <emmintrin.h>

#include <utility>

#include "base/check.h"

namespace nicsim::hw::func {

RingedDeviceAccess::RingedDeviceAccess(driver::DeviceAccess& device,
                                       kernel::EventQueue& host_events, uint32_t ring_commands)
    : device_(device), host_events_(host_events), ring_(ring_commands) {}

void RingedDeviceAccess::StartRing() {
  NICSIM_CHECK(!ringed_, "StartRing twice");
  ringed_ = true;
  device_.SetInterruptHandler(
      [this](uint32_t, const std::vector<abi::InterruptEvent>&) { ++interrupts_while_ringed_; });
}

void RingedDeviceAccess::StopRing() {
  NICSIM_CHECK(ringed_, "StopRing without StartRing");
  NICSIM_CHECK(ring_.size() == 0, "StopRing with %llu commands not served",
               static_cast<unsigned long long>(ring_.size()));
  ringed_ = false;
  device_.SetInterruptHandler(host_handler_);
}

void RingedDeviceAccess::Push(const Command& c) {
  if (!ring_.TryPush(c)) {
    ++ring_full_waits_;
    // The adapter's loop drains the ring between its events and polls.
    while (!ring_.TryPush(c)) _mm_pause();
  }
  ++commands_sent_;
}

void RingedDeviceAccess::MmioWrite(uint64_t offset, uint64_t value) {
  if (!ringed_) {
    device_.MmioWrite(offset, value);
    return;
  }
  Push({Command::Op::kWrite, 0, offset, value});
}

uint64_t RingedDeviceAccess::MmioRead(uint64_t offset) {
  if (!ringed_) return device_.MmioRead(offset);
  const uint32_t seq = ++reads_sent_;
  Push({Command::Op::kRead, seq, offset, 0});
  while (read_answered_.load(std::memory_order_acquire) != seq) _mm_pause();
  return read_value_.load(std::memory_order_relaxed);
}

void RingedDeviceAccess::SetInterruptHandler(InterruptHandler handler) {
  NICSIM_CHECK(!ringed_, "the interrupt handler changes only while the adapter loop is stopped");
  host_handler_ = handler;
  device_.SetInterruptHandler(std::move(handler));
}

void RingedDeviceAccess::HostTimer(uint64_t delay_ps, std::function<void()> fn) {
  if (!ringed_) {
    device_.HostTimer(delay_ps, std::move(fn));
    return;
  }
  host_events_.After(delay_ps, std::move(fn));
}

uint32_t RingedDeviceAccess::ServeCommands(uint32_t max) {
  uint32_t served = 0;
  Command c;
  while (served < max && ring_.TryPop(&c)) {
    ++served;
    if (c.op == Command::Op::kWrite) {
      device_.MmioWrite(c.offset, c.value);
    } else {
      read_value_.store(device_.MmioRead(c.offset), std::memory_order_relaxed);
      read_answered_.store(c.read_seq, std::memory_order_release);
    }
  }
  return served;
}

}  // namespace nicsim::hw::func
