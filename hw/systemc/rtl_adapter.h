// SPDX-License-Identifier: Apache-2.0
// The SystemC adapter with Verilated RTL blocks in the loop as live checkers: the task and
// buffer allocator mirrors every DTB decision, the receive DMA sequencer every received frame.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hw/systemc/systemc_adapter.h"

namespace nicsim::hw::systemc {

/**
 * A SystemcAdapter whose DTB allocations, DTB releases and receive-frame DMAs are replayed,
 * one operation per adapter clock, into the Verilated task_buffer_allocator and
 * rx_dma_sequencer, and whose answers are compared with what the C++ model did. The blocks
 * share a clock the adapter toggles itself, and only while it has work: an idle RTL adds no
 * SystemC activity. Needs the RTL's DTB count (8) and a 64- or 128-byte cache line.
 * Construct during elaboration only.
 *
 * Waveforms: a non-empty `vcd_prefix` writes one VCD file per block, PREFIX.aN.allocator.vcd
 * and PREFIX.aN.rx_sequencer.vcd (N = the adapter id), opened when the simulation starts and
 * closed with the adapter. The prefix's directory must exist.
 */
class RtlAdapter final : public SystemcAdapter {
 public:
  RtlAdapter(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
             uint32_t line_bytes, const func::AdapterTiming& timing,
             const fw::MicrocodeConfig& microcode, const func::AdapterResources& resources,
             const SystemcTiming& systemc, const std::string& vcd_prefix = "");
  ~RtlAdapter() override;

  /** The VCD file of each block (allocator, then receive sequencer); empty without tracing. */
  static std::vector<std::string> VcdPaths(const std::string& vcd_prefix, uint16_t adapter_id);

  fw::DtbId AllocDtb() override;
  void ReleaseDtb(fw::DtbId dtb) override;
  void StartDmaToHost(const fw::DmaToHost& request) override;
  std::vector<std::pair<std::string_view, uint64_t>> ExtraCounters() const override;

  /** Operations the RTL completed and checked (DTB ops and whole receive frames). */
  uint64_t rtl_ops() const { return rtl_ops_; }
  /** Receive frames the sequencer wrote out and finished (part of rtl_ops). */
  uint64_t rtl_frames() const { return rtl_frames_; }
  /** RTL answers that differed from the C++ model's decision. */
  uint64_t rtl_mismatches() const { return rtl_mismatches_; }
  /** The first mismatch, described; empty if none. */
  const std::string& first_mismatch() const { return first_mismatch_; }

 protected:
  void OnPayloadDtbTaken(fw::DtbId dtb) override;
  void OnDmaCompleted(const DmaJob& job, fw::DmaStatus status) override;
  void OnHardwareReset() override;

 private:
  struct Blocks;

  /** One DTB operation the C++ model made, for the allocator to repeat. */
  struct DtbOp {
    enum class Kind : uint8_t { kAlloc, kFree, kReset } kind;
    fw::DtbId dtb;
  };

  /** One received frame as the microcode moved it: the body DMA (if any), then the first line. */
  struct RxFrame {
    fw::TaskId task = fw::kNoTask;
    uint64_t base = 0;
    uint32_t payload_len = 0;
    bool has_body = false;
    uint64_t body_addr = 0;
    uint32_t body_len = 0;
    bool body_done = false;
    bool first_issued = false;
    uint64_t first_addr = 0;
    uint32_t first_len = 0;
    bool first_done = false;
  };

  void Mismatch(const std::string& what);
  /** Hands the clock thread new work. */
  void Wake();

  std::unique_ptr<Blocks> blocks_;
  std::deque<DtbOp> dtb_ops_;
  /** Frames not yet taken by the sequencer, oldest first. */
  std::deque<std::shared_ptr<RxFrame>> frames_;
  /** Frames whose DMAs are still in flight, by receive task. */
  std::map<fw::TaskId, std::shared_ptr<RxFrame>> open_frames_;
  uint64_t rtl_ops_ = 0;
  uint64_t rtl_frames_ = 0;
  uint64_t rtl_mismatches_ = 0;
  std::string first_mismatch_;
};

}  // namespace nicsim::hw::systemc
