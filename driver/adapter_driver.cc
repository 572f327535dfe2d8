// SPDX-License-Identifier: Apache-2.0
// Driver window management. LMTs are written through the adapter's SRAM MMIO range, which
// the hardware serves without microcode; disruptive commands go through the global page.
#include "driver/adapter_driver.h"

#include <cstring>
#include <string>

#include "abi/mmio.h"

namespace nicsim::driver {

AdapterDriver::AdapterDriver(DeviceAccess& device) : device_(device) {
  device_.SetInterruptHandler(
      [this](uint32_t handler, const std::vector<abi::InterruptEvent>& events) {
        OnInterrupt(handler, events);
      });
}

AdapterDriver::~AdapterDriver() {
  device_.SetInterruptHandler(nullptr);
  // Teardown of the whole simulation: nothing runs after this, so memory goes directly.
  for (uint32_t w = 0; w < abi::kMaxWindows; ++w) {
    if (open_[w]) Release(w);
  }
}

void AdapterDriver::Dispatch(const abi::InterruptEvent& ev) {
  ++interrupt_events_delivered_;
  if (ev.window < abi::kMaxWindows && handlers_[ev.window]) handlers_[ev.window](ev.causes);
}

void AdapterDriver::OnInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events) {
  ++interrupts_delivered_;
  const uint64_t ready_cmd = abi::GlobalCommandOffset(abi::GlobalCommand::kInterruptHandlerReady);
  if (service_ps_ == 0) {
    for (const abi::InterruptEvent& ev : events) Dispatch(ev);
    // Serviced: this handler may take the next interrupt.
    device_.MmioWrite(ready_cmd, handler);
    return;
  }
  // The handler's thread works through its events one after another; an adapter recovery
  // meanwhile ends the work (its events are gone with the adapter's state).
  const uint64_t recovery = recovery_count_;
  for (size_t i = 0; i < events.size(); ++i) {
    device_.HostTimer((i + 1) * service_ps_, [this, ev = events[i], recovery] {
      if (recovery == recovery_count_) Dispatch(ev);
    });
  }
  device_.HostTimer(events.size() * service_ps_, [this, handler, ready_cmd, recovery] {
    if (recovery == recovery_count_) device_.MmioWrite(ready_cmd, handler);
  });
}

Status AdapterDriver::Init() {
  const abi::LmtEntry closed{};
  for (uint32_t w = 0; w < abi::kMaxWindows; ++w) WriteLmt(w, closed);
  return Status();
}

void AdapterDriver::WriteLmt(uint32_t window, const abi::LmtEntry& lmt) {
  uint64_t words[sizeof(lmt) / 8];
  std::memcpy(words, &lmt, sizeof(lmt));
  const uint64_t base = abi::kMmioSramBase + abi::LmtAddr(window);
  for (size_t i = 0; i < sizeof(lmt) / 8; ++i) device_.MmioWrite(base + 8 * i, words[i]);
}

abi::LmtEntry AdapterDriver::ReadLmt(uint32_t window) {
  uint64_t words[sizeof(abi::LmtEntry) / 8];
  const uint64_t base = abi::kMmioSramBase + abi::LmtAddr(window);
  for (size_t i = 0; i < sizeof(words) / 8; ++i) words[i] = device_.MmioRead(base + 8 * i);
  abi::LmtEntry lmt;
  std::memcpy(&lmt, words, sizeof(lmt));
  return lmt;
}

void AdapterDriver::FlushLmt(uint32_t window) {
  device_.MmioWrite(abi::GlobalCommandOffset(abi::GlobalCommand::kFlushLmt), window);
}

uint64_t AdapterDriver::ReadSnapshot() {
  return device_.MmioRead(abi::GlobalRegOffset(abi::GlobalReg::kSnapshotView));
}

void AdapterDriver::WriteOpenLmt(const WindowInfo& info) {
  abi::LmtEntry lmt{};
  lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
  lmt.protection_key = info.job_key;
  lmt.recv_fifo_addr = info.recv_fifo.real_addr;
  lmt.recv_fifo_frames = info.recv_frames;
  lmt.line_bytes = info.line_bytes;
  lmt.send_fifo_addr = info.send_fifo.real_addr;
  lmt.send_fifo_slots = info.send_slots;
  WriteLmt(info.window, lmt);
}

Result<WindowInfo> AdapterDriver::OpenWindow(uint32_t window, const WindowRequest& req) {
  const std::string where = "open window " + std::to_string(window) + ": ";
  if (window >= abi::kMaxWindows) {
    return Status::Error(where + "window must be below " + std::to_string(abi::kMaxWindows));
  }
  if (open_[window]) {
    return Status::Error(
        where + (open_[window]->phase == WindowPhase::kClosing ? "still closing" : "already open"));
  }
  if (req.recv_frames == 0) return Status::Error(where + "recv_frames must be positive");
  if (req.send_slots == 0) return Status::Error(where + "send_slots must be positive");
  const uint32_t line = device_.CacheLineBytes();
  Result<host::HostRegion> recv =
      device_.AllocContiguous(uint64_t{req.recv_frames} * abi::kRecvFrameBytes);
  if (!recv.ok()) return Status::Error(where + recv.status().message());
  Result<host::HostRegion> send =
      device_.AllocContiguous(uint64_t{req.send_slots} * abi::SendSlotBytes(line));
  if (!send.ok()) {
    device_.FreeContiguous(*recv);
    return Status::Error(where + send.status().message());
  }
  WindowInfo info;
  info.window = window;
  info.adapter_id = device_.AdapterId();
  info.line_bytes = line;
  info.job_key = req.job_key;
  info.recv_fifo = *recv;
  info.recv_frames = req.recv_frames;
  info.send_fifo = *send;
  info.send_slots = req.send_slots;
  WriteOpenLmt(info);
  open_[window] = Slot{info, WindowPhase::kOpen};
  return info;
}

Status AdapterDriver::CloseWindow(uint32_t window, std::function<void()> done) {
  if (!IsOpen(window)) {
    return Status::Error("close window " + std::to_string(window) + ": not open");
  }
  handlers_[window] = nullptr;
  if (open_[window]->phase == WindowPhase::kLost) {
    // The adapter was reset: nothing of the window is in flight any more.
    Release(window);
    if (done) done();
    return Status();
  }
  open_[window]->phase = WindowPhase::kClosing;
  open_[window]->close_id = ++closes_started_;
  device_.MmioWrite(abi::GlobalCommandOffset(abi::GlobalCommand::kCloseWindow), window);
  PollClose(window, closes_started_, std::move(done));
  return Status();
}

void AdapterDriver::PollClose(uint32_t window, uint64_t close_id, std::function<void()> done) {
  // A recovery released the window while this close waited (RecoverAdapter): its memory is
  // gone already, and the window number may belong to a window opened since. Releasing
  // "the window" here would free that new window's FIFOs under the adapter.
  if (!open_[window] || open_[window]->phase != WindowPhase::kClosing ||
      open_[window]->close_id != close_id) {
    if (done) done();
    return;
  }
  // The read is ordered after the close command, so a zero here means every task that could
  // still hold the window's old state has finished.
  if (ReadSnapshot() != 0) {
    device_.HostTimer(kSnapshotPollPs, [this, window, close_id, done = std::move(done)]() mutable {
      PollClose(window, close_id, std::move(done));
    });
    return;
  }
  Release(window);
  if (done) done();
}

void AdapterDriver::Release(uint32_t window) {
  device_.FreeContiguous(open_[window]->info.recv_fifo);
  device_.FreeContiguous(open_[window]->info.send_fifo);
  open_[window].reset();
}

bool AdapterDriver::IsClosing(uint32_t window) const {
  return window < abi::kMaxWindows && open_[window] &&
         open_[window]->phase == WindowPhase::kClosing;
}

void AdapterDriver::RecoverAdapter() {
  device_.MmioWrite(abi::GlobalCommandOffset(abi::GlobalCommand::kResetAdapter), 0);
  // The read waits for the reset to land; afterwards nothing is in flight.
  (void)ReadSnapshot();
  ++recovery_count_;
  for (auto& slot : open_) {
    if (!slot) continue;
    if (slot->phase == WindowPhase::kClosing) {
      const uint32_t w = slot->info.window;
      Release(w);
    } else {
      slot->phase = WindowPhase::kLost;
    }
  }
}

Result<WindowInfo> AdapterDriver::ReopenWindow(uint32_t window) {
  if (window >= abi::kMaxWindows || !open_[window] || open_[window]->phase != WindowPhase::kLost) {
    return Status::Error("reopen window " + std::to_string(window) +
                         ": not a window lost in an adapter recovery");
  }
  WindowInfo& info = open_[window]->info;
  std::memset(info.recv_fifo.ptr, 0, info.recv_fifo.bytes);
  std::memset(info.send_fifo.ptr, 0, info.send_fifo.bytes);
  WriteOpenLmt(info);
  open_[window]->phase = WindowPhase::kOpen;
  return info;
}

void AdapterDriver::SetWindowInterruptHandler(uint32_t window, WindowInterruptFn fn) {
  if (window < abi::kMaxWindows) handlers_[window] = std::move(fn);
}

}  // namespace nicsim::driver
