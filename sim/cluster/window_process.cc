// SPDX-License-Identifier: Apache-2.0
// WindowProcess: device writes into a window's FIFOs wake one poll after the CPU's poll latency,
// standing in for a CPU spinning on the next frame's first cache line (receive writes that
// miss every frame's first line wake nothing).
#include "sim/cluster/window_process.h"

namespace nicsim::sim {

namespace {

hal::InterruptTiming ArmingTiming(WaitMode mode) {
  switch (mode) {
    case WaitMode::kEarlyInterrupt:
      return hal::InterruptTiming::kEarly;
    case WaitMode::kEarlyWhenIdle:
      return hal::InterruptTiming::kEarlyWhenIdle;
    default:
      return hal::InterruptTiming::kCoherent;
  }
}

}  // namespace

bool CoversFrameStart(uint64_t fifo_base, uint64_t addr, uint64_t len) {
  const uint64_t offset = addr - fifo_base;
  const uint64_t next_start =
      (offset + abi::kRecvFrameBytes - 1) / abi::kRecvFrameBytes * abi::kRecvFrameBytes;
  return next_start < offset + len;
}

WindowProcess::WindowProcess(hal::Window& window, driver::AdapterDriver& driver,
                             kernel::EventQueue& events, host::HostMemory& host,
                             uint64_t poll_latency_ps, WaitMode mode, HostCpu cpu)
    : hal::Endpoint(window),
      driver_(driver),
      events_(events),
      host_(host),
      poll_latency_ps_(poll_latency_ps),
      mode_(mode),
      arming_(window, ArmingTiming(mode)) {
  // A spinning CPU rings once per turn, for every slot it posted in it (Spin).
  arming_.SetCpuIdleProbe(std::move(cpu.idle));
  cpu_take_ = std::move(cpu.take);
  SetRingEachPost(mode_ != WaitMode::kSpin);
  const auto& info = window.info();
  // A spinning CPU sees the receive FIFO change; a sleeping one waits for the interrupt;
  // one on a core of its own looks for itself (Spin).
  // Every mode hears of a fatal window (an RDMA protection failure): its owner must act.
  driver_.SetWindowInterruptHandler(info.window, [this](uint32_t causes) { OnInterrupt(causes); });
  if (mode_ == WaitMode::kSpin) return;
  if (mode_ == WaitMode::kPoll) {
    recv_watch_ = host_.Watch(info.recv_fifo.real_addr, info.recv_fifo.bytes,
                              [this, base = info.recv_fifo.real_addr](uint64_t addr, uint64_t len) {
                                if (CoversFrameStart(base, addr, len)) SchedulePoll();
                              });
  } else {
    ArmInterrupt();
  }
  send_watch_ = host_.Watch(info.send_fifo.real_addr, info.send_fifo.bytes,
                            [this](uint64_t, uint64_t) { SchedulePoll(); });
}

WindowProcess::~WindowProcess() {
  if (recv_watch_ != 0) host_.Unwatch(recv_watch_);
  if (send_watch_ != 0) host_.Unwatch(send_watch_);
  driver_.SetWindowInterruptHandler(window().info().window, nullptr);
}

void WindowProcess::OnInterrupt(uint32_t causes) {
  if ((causes & static_cast<uint32_t>(abi::InterruptCause::kWindowFatal)) && on_fatal_) {
    ++fatal_interrupts_;
    // Told after this interrupt is served: the owner closes the window, ending this endpoint.
    events_.After(0, [fn = on_fatal_, life = life_.watch()] {
      if (life.alive()) fn();
    });
  }
  if (!WaitsForInterrupts()) return;
  ++wakeups_;
  // The frame this interrupt announces may already have been read by an earlier poll.
  expecting_ = window().recv().consumed() < armed_for_;
  spin_until_ps_ = events_.now_ps() + kMaxSpinPolls * poll_latency_ps_;
  SchedulePoll();
}

void WindowProcess::SetHostTrace(HostTraceSink* sink) {
  host_trace_ = sink;
  if (sink == nullptr) {
    OnConsumed(nullptr);
    return;
  }
  OnConsumed([this](uint64_t seq) {
    TraceHost(host_trace_, events_.now_ps(), window().info().adapter_id,
              {HostTraceKind::kFrameConsumed, window().info().window, seq});
  });
}

void WindowProcess::ArmInterrupt() {
  armed_for_ = window().recv().consumed() + 1;
  arming_.Arm(armed_for_);
}

void WindowProcess::OnCpuStateChanged() {
  // Asleep: armed and neither woken (poll pending) nor spinning for an announced frame.
  if (mode_ != WaitMode::kEarlyWhenIdle || poll_pending_ || expecting_) return;
  arming_.Refresh(armed_for_);
}

void WindowProcess::SetConsuming(bool consuming) {
  hal::Endpoint::SetConsuming(consuming);
  if (consuming) SchedulePoll();
}

void WindowProcess::SchedulePoll() {
  if (poll_pending_) return;
  poll_pending_ = true;
  // The process may exit (its window closes) before the poll runs.
  events_.After(poll_latency_ps_, [this, life = life_.watch()] {
    if (!life.alive()) return;
    poll_pending_ = false;
    Poll();
  });
}

void WindowProcess::Poll() {
  if (consuming()) {
    const bool any = ReadFrames() > 0;
    if (window().recv().consumed() >= armed_for_) expecting_ = false;
    if (WaitsForInterrupts()) {
      if (expecting_ && events_.now_ps() < spin_until_ps_) {
        // Early interrupt: the data is still on its way; spin on the first line. On a CPU
        // that had work of its own, the spin's time is taken from that work.
        ++early_spins_;
        if (arming_.armed_early() && !arming_.CpuIdle()) {
          ++busy_early_spins_;
          if (cpu_take_) cpu_take_(poll_latency_ps_);
        }
        SchedulePoll();
      } else if (any || expecting_) {
        // Sleep again. An interrupt that was stale (its frame already read) ends here; for a
        // frame still in flight the threshold is already reached and fires at once.
        expecting_ = false;
        ArmInterrupt();
      }
    }
  }
  DrainBacklog();
}

void WindowProcess::Spin() {
  Poll();
  Flush();
}

}  // namespace nicsim::sim
