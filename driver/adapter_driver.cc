// SPDX-License-Identifier: Apache-2.0
// Driver window management. LMTs are written through the adapter's SRAM MMIO window,
// which the hardware serves without the microcode.
#include "driver/adapter_driver.h"

#include <cstring>
#include <string>

#include "abi/mmio.h"

namespace nicsim::driver {

AdapterDriver::AdapterDriver(DeviceAccess& device) : device_(device) {
  device_.SetInterruptHandler([this](uint32_t window, uint32_t cause) {
    ++interrupts_delivered_;
    if (window < abi::kMaxWindows && handlers_[window]) handlers_[window](cause);
  });
}

AdapterDriver::~AdapterDriver() {
  device_.SetInterruptHandler(nullptr);
  for (uint32_t w = 0; w < abi::kMaxWindows; ++w) {
    if (open_[w]) (void)CloseWindow(w);
  }
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

Result<WindowInfo> AdapterDriver::OpenWindow(uint32_t window, const WindowRequest& req) {
  const std::string where = "open window " + std::to_string(window) + ": ";
  if (window >= abi::kMaxWindows) {
    return Status::Error(where + "window must be below " + std::to_string(abi::kMaxWindows));
  }
  if (open_[window]) return Status::Error(where + "already open");
  if (req.recv_frames == 0) return Status::Error(where + "recv_frames must be positive");
  if (req.send_slots == 0) return Status::Error(where + "send_slots must be positive");
  const uint32_t line = device_.CacheLineBytes();
  Result<HostRegion> recv = device_.AllocContiguous(uint64_t{req.recv_frames} * abi::kRecvFrameBytes);
  if (!recv.ok()) return Status::Error(where + recv.status().message());
  Result<HostRegion> send = device_.AllocContiguous(uint64_t{req.send_slots} * abi::SendSlotBytes(line));
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

  abi::LmtEntry lmt{};
  lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
  lmt.protection_key = req.job_key;
  lmt.recv_fifo_addr = recv->real_addr;
  lmt.recv_fifo_frames = req.recv_frames;
  lmt.line_bytes = line;
  lmt.send_fifo_addr = send->real_addr;
  lmt.send_fifo_slots = req.send_slots;
  WriteLmt(window, lmt);
  open_[window] = info;
  return info;
}

Status AdapterDriver::CloseWindow(uint32_t window) {
  if (!IsOpen(window)) {
    return Status::Error("close window " + std::to_string(window) + ": not open");
  }
  WriteLmt(window, abi::LmtEntry{});
  device_.FreeContiguous(open_[window]->recv_fifo);
  device_.FreeContiguous(open_[window]->send_fifo);
  open_[window].reset();
  handlers_[window] = nullptr;
  return Status();
}

void AdapterDriver::SetWindowInterruptHandler(uint32_t window, WindowInterruptFn fn) {
  if (window < abi::kMaxWindows) handlers_[window] = std::move(fn);
}

}  // namespace nicsim::driver
