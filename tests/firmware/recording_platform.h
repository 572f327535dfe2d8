// SPDX-License-Identifier: Apache-2.0
// A test platform that records every service call the microcode makes and lets a test
// complete DMAs one at a time, so each firmware step can be observed in isolation.
#pragma once

#include <cstring>
#include <deque>
#include <map>
#include <vector>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "abi/lmt.h"
#include "abi/packet.h"
#include "firmware/microcode.h"
#include "firmware/platform.h"

namespace nicsim::fw::testing {

/** Host memory for firmware tests: a flat array at a fixed base address. */
inline constexpr uint64_t kHostBase = 0x4000'0000;

class RecordingPlatform : public Platform {
 public:
  explicit RecordingPlatform(uint32_t line_bytes = 128, uint32_t dtbs = 16,
                             uint32_t header_buffers = 16)
      : line_bytes_(line_bytes),
        sram_(abi::kSramBytes),
        host_(1 << 24),
        header_buffers_(header_buffers, std::vector<uint8_t>(128)) {
    for (int i = static_cast<int>(dtbs) - 1; i >= 0; --i)
      free_dtbs_.push_back(static_cast<DtbId>(i));
    dtbs_.assign(dtbs, std::vector<uint8_t>(abi::kRecvFrameBytes));
    for (int i = static_cast<int>(header_buffers) - 1; i >= 0; --i) {
      free_hbs_.push_back(static_cast<HeaderBufferId>(i));
    }
  }

  struct HostWrite {
    uint64_t addr;
    std::vector<uint8_t> data;
    TaskId tag;
  };
  struct Pending {
    bool to_host;
    DmaToHost out;
    DmaFromHost in;
  };
  struct Sent {
    abi::WireHeader header;
    std::vector<uint8_t> payload;
  };
  struct Interrupt {
    uint32_t handler;
    uint32_t window;
    uint32_t cause;
  };

  void Attach(Microcode* mc) { mc_ = mc; }

  // Test helpers.
  uint8_t* Host(uint64_t addr) { return &host_[addr - kHostBase]; }
  abi::LmtEntry Lmt(uint32_t window) {
    abi::LmtEntry l;
    SramRead(abi::LmtAddr(window), &l, sizeof(l));
    return l;
  }
  void SetLmt(uint32_t window, const abi::LmtEntry& l) {
    SramWrite(abi::LmtAddr(window), &l, sizeof(l));
  }
  size_t pending_dmas() const { return pending_.size(); }
  const Pending& next_dma() const { return pending_.front(); }
  /** Performs the oldest DMA and delivers its completion. */
  void CompleteNextDma(DmaStatus status = DmaStatus::kOk) {
    Pending p = pending_.front();
    pending_.pop_front();
    if (p.to_host) {
      std::vector<uint8_t> data(p.out.prefix, p.out.prefix + p.out.prefix_len);
      if (p.out.dtb_len) {
        const auto& d = dtbs_[p.out.dtb];
        data.insert(data.end(), d.begin() + p.out.dtb_offset,
                    d.begin() + p.out.dtb_offset + p.out.dtb_len);
      }
      if (status == DmaStatus::kOk) std::memcpy(Host(p.out.host_addr), data.data(), data.size());
      host_writes.push_back({p.out.host_addr, data, p.out.tag});
      mc_->OnDmaComplete(p.out.tag, status);
    } else {
      uint8_t* dst = p.in.target == DmaTarget::kHeaderBuffer
                         ? header_buffers_[p.in.header_buffer].data() + p.in.header_offset
                         : dtbs_[p.in.dtb].data() + p.in.dtb_offset;
      if (status == DmaStatus::kOk) std::memcpy(dst, Host(p.in.host_addr), p.in.len);
      mc_->OnDmaComplete(p.in.tag, status);
    }
  }
  void CompleteAllDmas() {
    while (!pending_.empty()) CompleteNextDma();
  }
  /** Stages a payload in a free DTB, as the hardware does on payload arrival. */
  DtbId StagePayload(const std::vector<uint8_t>& payload) {
    DtbId d = AllocDtb();
    std::memcpy(dtbs_[d].data(), payload.data(), payload.size());
    return d;
  }
  size_t free_dtbs() const { return free_dtbs_.size(); }
  size_t free_header_buffers() const { return free_hbs_.size(); }

  std::vector<HostWrite> host_writes;
  std::vector<Sent> sent;
  std::vector<Interrupt> interrupts;
  std::vector<TraceEvent> traces;
  uint32_t rx_task_freed = 0;
  uint16_t adapter_id = 3;

  // Platform.
  uint16_t AdapterId() const override { return adapter_id; }
  uint32_t CacheLineBytes() const override { return line_bytes_; }
  void SramRead(uint32_t addr, void* dst, uint32_t len) override {
    std::memcpy(dst, &sram_[addr], len);
  }
  void SramWrite(uint32_t addr, const void* src, uint32_t len) override {
    std::memcpy(&sram_[addr], src, len);
  }
  uint64_t ReadGlobalReg(abi::GlobalReg reg) override { return regs_[static_cast<int>(reg)]; }
  void WriteGlobalReg(abi::GlobalReg reg, uint64_t v) override { regs_[static_cast<int>(reg)] = v; }
  void StartDmaToHost(const DmaToHost& r) override { pending_.push_back({true, r, {}}); }
  void StartDmaFromHost(const DmaFromHost& r) override { pending_.push_back({false, {}, r}); }
  DtbId AllocDtb() override {
    if (free_dtbs_.empty()) return kNoDtb;
    DtbId d = free_dtbs_.back();
    free_dtbs_.pop_back();
    return d;
  }
  void ReleaseDtb(DtbId d) override { free_dtbs_.push_back(d); }
  HeaderBufferId AllocHeaderBuffer() override {
    if (free_hbs_.empty()) return kNoHeaderBuffer;
    HeaderBufferId h = free_hbs_.back();
    free_hbs_.pop_back();
    return h;
  }
  void ReleaseHeaderBuffer(HeaderBufferId h) override { free_hbs_.push_back(h); }
  uint8_t* HeaderBuffer(HeaderBufferId h) override { return header_buffers_[h].data(); }
  void Transmit(const abi::WireHeader& h, DtbId dtb, uint32_t len) override {
    sent.push_back({h, std::vector<uint8_t>(dtbs_[dtb].begin(), dtbs_[dtb].begin() + len)});
  }
  void TransmitControl(const abi::WireHeader& h, const void* payload, uint32_t len) override {
    const auto* p = static_cast<const uint8_t*>(payload);
    sent.push_back({h, std::vector<uint8_t>(p, p + len)});
  }
  void RaiseInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events) override {
    for (const auto& e : events) interrupts.push_back({handler, e.window, e.causes});
  }
  void RxResourcesFreed() override { ++rx_task_freed; }
  void Trace(const TraceEvent& e) override { traces.push_back(e); }

 private:
  uint32_t line_bytes_;
  std::vector<uint8_t> sram_;
  std::vector<uint8_t> host_;
  std::vector<std::vector<uint8_t>> header_buffers_;
  std::vector<std::vector<uint8_t>> dtbs_;
  std::vector<DtbId> free_dtbs_;
  std::vector<HeaderBufferId> free_hbs_;
  uint64_t regs_[4] = {};
  std::deque<Pending> pending_;
  Microcode* mc_ = nullptr;
};

}  // namespace nicsim::fw::testing
