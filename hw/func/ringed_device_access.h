// SPDX-License-Identifier: Apache-2.0
// DeviceAccess for a host CPU and an adapter poll loop on different cores: MMIO commands go
// through a lock-free ring that the adapter's loop drains, instead of calling the adapter.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "driver/device_access.h"
#include "hw/common/spsc_ring.h"
#include "kernel/event_queue.h"

namespace nicsim::hw::func {

/**
 * Wraps the DeviceAccess of an adapter (`device`, called only on the adapter's thread once the
 * ring is on). Two states:
 *  - direct (the start): every call goes straight to `device`, as on one thread. The driver
 *    initialises the adapter and opens windows this way.
 *  - ringed (between StartRing and StopRing): MmioWrite appends the command to the ring and
 *    returns (a posted write); MmioRead appends a read and spins until the adapter's loop has
 *    answered it (so, as on a bus, every write posted before it has landed first). The adapter
 *    thread calls ServeCommands in its loop. Host timers run on `host_events`, which the host
 *    thread advances. A host on its own core polls: interrupts the adapter raises meanwhile
 *    are counted (interrupts_while_ringed), not handed to the driver on the adapter's thread.
 * Threads: the host thread calls the DeviceAccess methods, and StartRing/StopRing while the
 * adapter loop is not running (SetInterruptHandler too); the adapter thread calls only
 * ServeCommands.
 */
class RingedDeviceAccess final : public driver::DeviceAccess {
 public:
  /** Commands the ring holds: a full ring makes MmioWrite spin until the adapter catches up. */
  static constexpr uint32_t kDefaultRingCommands = 1024;

  RingedDeviceAccess(driver::DeviceAccess& device, kernel::EventQueue& host_events,
                     uint32_t ring_commands = kDefaultRingCommands);

  uint16_t AdapterId() const override { return device_.AdapterId(); }
  uint32_t CacheLineBytes() const override { return device_.CacheLineBytes(); }
  void MmioWrite(uint64_t offset, uint64_t value) override;
  uint64_t MmioRead(uint64_t offset) override;
  /** Host memory belongs to the host: allocation never goes through the adapter. */
  Result<host::HostRegion> AllocContiguous(uint64_t bytes) override {
    return device_.AllocContiguous(bytes);
  }
  void FreeContiguous(const host::HostRegion& region) override { device_.FreeContiguous(region); }
  void SetInterruptHandler(InterruptHandler handler) override;
  void HostTimer(uint64_t delay_ps, std::function<void()> fn) override;

  /** Host thread, before the adapter loop starts: from now on MMIO goes through the ring. */
  void StartRing();
  /**
   * Host thread, after the adapter loop has served every command (ServeCommands returned 0)
   * and stopped: back to direct calls, and the driver's interrupt handler again.
   */
  void StopRing();
  bool ringed() const { return ringed_; }

  /** Adapter thread: applies up to `max` queued commands in order; returns how many. */
  uint32_t ServeCommands(uint32_t max);

  /** Host thread: MmioWrite calls that found the ring full and waited. */
  uint64_t ring_full_waits() const { return ring_full_waits_; }
  /** Commands pushed through the ring so far (host thread). */
  uint64_t commands_sent() const { return commands_sent_; }
  /** Interrupts the adapter raised while ringed (read once the adapter loop has stopped). */
  uint64_t interrupts_while_ringed() const { return interrupts_while_ringed_; }

 private:
  /** One MMIO access on its way to the adapter. */
  struct Command {
    enum class Op : uint32_t { kWrite, kRead };
    Op op;
    /** For a read: its sequence number, which the answer carries back. */
    uint32_t read_seq;
    uint64_t offset;
    uint64_t value;
  };
  void Push(const Command& c);

  driver::DeviceAccess& device_;
  kernel::EventQueue& host_events_;
  SpscRing<Command> ring_;
  bool ringed_ = false;
  /** The driver's handler, reinstalled on the device by StopRing. */
  InterruptHandler host_handler_;
  /** Written by the adapter thread only while ringed. */
  uint64_t interrupts_while_ringed_ = 0;
  uint32_t reads_sent_ = 0;
  uint64_t ring_full_waits_ = 0;
  uint64_t commands_sent_ = 0;
  /** The adapter thread's answer to the latest read: its value, then its sequence number. */
  std::atomic<uint64_t> read_value_{0};
  std::atomic<uint32_t> read_answered_{0};
};

}  // namespace nicsim::hw::func
