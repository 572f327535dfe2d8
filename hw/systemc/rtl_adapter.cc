// SPDX-License-Identifier: Apache-2.0
// RTL adapter: the Verilated allocator and receive DMA sequencer bound to their own signals
// inside the cluster's SystemC kernel, clocked by one SC_THREAD that sleeps while idle.
#include "hw/systemc/rtl_adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "Vrx_dma_sequencer.h"
#include "Vtask_buffer_allocator.h"
#include "abi/fifo.h"
#include "abi/limits.h"
#include "hw/rtl/rx_dma_sequencer_model.h"
#include "hw/rtl/task_buffer_allocator_model.h"
#include "hw/systemc/kernel.h"
#include "systemc.h"
#include "verilated.h"
#include "verilated_vcd_sc.h"

namespace nicsim::hw::systemc {

using rtl::AllocatorOp;
using rtl::SequencerOutputs;

namespace {

/** Switches Verilator's tracing on when VCD is wanted: it must be on before a model is built. */
std::vector<std::string> EnableTracing(std::vector<std::string> vcd_paths) {
  if (!vcd_paths.empty()) Verilated::traceEverOn(true);
  return vcd_paths;
}

}  // namespace

/**
 * The two Verilated blocks, their signals and the clock thread. Ports are bound as the
 * hw/rtl drivers bind them, but the clock is toggled with wait() from inside the kernel.
 */
struct RtlAdapter::Blocks : sc_core::sc_module {
  SC_HAS_PROCESS(Blocks);

  Blocks(const sc_core::sc_module_name& name, RtlAdapter& adapter, uint64_t half_period_ps,
         std::vector<std::string> vcd_file_paths)
      : sc_core::sc_module(name),
        owner(adapter),
        half(sc_core::sc_time::from_value(std::max<uint64_t>(half_period_ps, 1))),
        vcd_paths(EnableTracing(std::move(vcd_file_paths))),
        allocator("allocator"),
        sequencer("rx_sequencer") {
    allocator.clk(clk);
    allocator.rst_n(rst_n);
    allocator.rx_limit(rx_limit);
    allocator.tx_limit(tx_limit);
    allocator.req_valid(req_valid);
    allocator.req_ready(req_ready);
    allocator.req_op(req_op);
    allocator.req_kind(req_kind);
    allocator.req_task(req_task);
    allocator.req_window(req_window);
    allocator.req_cb(req_cb);
    allocator.req_dtb(req_dtb);
    allocator.rsp_valid(rsp_valid);
    allocator.rsp_op(rsp_op);
    allocator.rsp_ok(rsp_ok);
    allocator.rsp_error(rsp_error);
    allocator.rsp_id(rsp_id);
    allocator.rsp_fetched(rsp_fetched);
    allocator.rsp_flushed(rsp_flushed);
    allocator.rx_active(rx_active);
    allocator.tx_active(tx_active);
    allocator.queue_depth(queue_depth);
    allocator.free_cbs(free_cbs);
    allocator.free_dtbs(free_dtbs);

    sequencer.clk(clk);
    sequencer.rst_n(rst_n);
    sequencer.start_valid(start_valid);
    sequencer.start_ready(start_ready);
    sequencer.start_base(start_base);
    sequencer.start_len(start_len);
    sequencer.start_line_bytes(start_line_bytes);
    sequencer.wr_valid(wr_valid);
    sequencer.wr_ready(wr_ready);
    sequencer.wr_addr(wr_addr);
    sequencer.wr_bytes(wr_bytes);
    sequencer.wr_is_first_line(wr_is_first_line);
    sequencer.wr_ack(wr_ack);
    sequencer.body_coherent(body_coherent);
    sequencer.done(done);
    sequencer.ack_error(ack_error);

    SC_THREAD(Run);
  }

  ~Blocks() override {
    for (std::unique_ptr<VerilatedVcdSc>& vcd : vcds) {
      vcd->close();
      // The SystemC kernel keeps a pointer to every trace file for the rest of the process (a
      // closed one ignores its callbacks), so it is left alive, as in hw/rtl/internal.h.
      static_cast<void>(vcd.release());
    }
  }

  /**
   * Opens the VCD files (the backend checked they can be written): Verilator allows it only
   * once elaboration is complete.
   */
  void start_of_simulation() override {
    if (vcd_paths.empty()) return;
    vcds.push_back(std::make_unique<VerilatedVcdSc>());
    allocator.trace(vcds.back().get(), 99);
    vcds.back()->open(vcd_paths[0].c_str());
    vcds.push_back(std::make_unique<VerilatedVcdSc>());
    sequencer.trace(vcds.back().get(), 99);
    vcds.back()->open(vcd_paths[1].c_str());
  }

  /** One clock: inputs set up in the low half, the rising edge, outputs read in the high half. */
  void Cycle() {
    wait(half);
    clk.write(true);
    wait(half);
    clk.write(false);
  }

  void ResetBlocks() {
    req_valid.write(false);
    start_valid.write(false);
    wr_ready.write(false);
    wr_ack.write(false);
    rx_limit.write(rtl::AllocatorParams{}.num_tasks);
    tx_limit.write(rtl::AllocatorParams{}.num_tasks);
    rst_n.write(false);
    Cycle();
    Cycle();
    rst_n.write(true);
    Cycle();
  }

  SequencerOutputs SequencerOut() const {
    SequencerOutputs out;
    out.start_ready = start_ready.read();
    out.wr_valid = wr_valid.read();
    out.wr_addr = wr_addr.read();
    out.wr_bytes = wr_bytes.read();
    out.wr_is_first_line = wr_is_first_line.read();
    out.body_coherent = body_coherent.read();
    out.done = done.read();
    out.ack_error = ack_error.read();
    return out;
  }

  /** Presents the next queued DTB operation; returns true if it did. */
  bool FeedAllocator() {
    req_valid.write(false);
    if (owner.dtb_ops_.empty()) return false;
    pending_op = owner.dtb_ops_.front();
    owner.dtb_ops_.pop_front();
    if (pending_op.kind == DtbOp::Kind::kReset) {
      ResetBlocks();
      seq_frame.reset();
      return false;
    }
    const bool alloc = pending_op.kind == DtbOp::Kind::kAlloc;
    req_valid.write(true);
    req_op.write(static_cast<uint32_t>(alloc ? AllocatorOp::kAllocDtb : AllocatorOp::kFreeDtb));
    req_dtb.write(alloc ? 0 : pending_op.dtb);
    return true;
  }

  /** Compares the allocator's answer to the operation fed before the last edge. */
  void CheckAllocator() {
    const bool alloc = pending_op.kind == DtbOp::Kind::kAlloc;
    const AllocatorOp op = alloc ? AllocatorOp::kAllocDtb : AllocatorOp::kFreeDtb;
    ++owner.rtl_ops_;
    if (!rsp_valid.read() || static_cast<AllocatorOp>(rsp_op.read()) != op || !rsp_ok.read() ||
        rsp_error.read() || rsp_id.read() != pending_op.dtb) {
      owner.Mismatch(fmt::format("allocator {} dtb: model {} rtl valid={} ok={} error={} id={}",
                                 alloc ? "alloc" : "free", pending_op.dtb, rsp_valid.read(),
                                 rsp_ok.read(), rsp_error.read(), rsp_id.read()));
    }
  }

  /**
   * Sets the sequencer's inputs for the next edge from its outputs and the model's DMAs;
   * returns true if it presented anything (a start, an accepted write or an ack).
   */
  bool FeedSequencer(const SequencerOutputs& out) {
    bool start = false;
    bool ready = false;
    bool ack = false;
    if (seq_frame && out.done) {
      ++owner.rtl_ops_;
      ++owner.rtl_frames_;
      seq_frame.reset();
    }
    if (out.ack_error) owner.Mismatch("sequencer: ack with no write outstanding");
    if (!seq_frame && !owner.frames_.empty() && out.start_ready) {
      seq_frame = owner.frames_.front();
      owner.frames_.pop_front();
      next_body_addr = seq_frame->base + owner.CacheLineBytes();
      body_writes = 0;
      body_acks = 0;
      first_accepted = false;
      first_acked = false;
      start = true;
      start_base.write(seq_frame->base);
      start_len.write(seq_frame->payload_len & 0xFFFFu);
      start_line_bytes.write(owner.CacheLineBytes() & 0xFFu);
    } else if (seq_frame) {
      RxFrame& f = *seq_frame;
      // An ack answers a write taken at an earlier edge: decide it before taking more.
      if (f.body_done && body_acks < body_writes) {
        ack = true;
        ++body_acks;
      } else if (first_accepted && f.first_done && !first_acked) {
        ack = true;
        first_acked = true;
      }
      if (out.wr_valid && !out.wr_is_first_line) {
        ready = true;
        if (!f.has_body || out.wr_addr != next_body_addr ||
            out.wr_addr + out.wr_bytes > f.body_addr + f.body_len) {
          owner.Mismatch(fmt::format("sequencer body write {:#x}+{}: model body {}{:#x}+{}",
                                     out.wr_addr, out.wr_bytes, f.has_body ? "" : "none ",
                                     f.body_addr, f.body_len));
        }
        next_body_addr = out.wr_addr + out.wr_bytes;
        ++body_writes;
      } else if (out.wr_valid && !first_accepted && f.first_issued) {
        ready = true;
        first_accepted = true;
        // The first line must come last: every body line written and coherent.
        const bool body_complete = !f.has_body || (f.body_done && body_acks == body_writes &&
                                                   next_body_addr == f.body_addr + f.body_len);
        if (out.wr_addr != f.first_addr || out.wr_bytes != f.first_len || !body_complete) {
          owner.Mismatch(
              fmt::format("sequencer first line {:#x}+{}: model {:#x}+{} (body complete: {})",
                          out.wr_addr, out.wr_bytes, f.first_addr, f.first_len, body_complete));
        }
      }
    }
    start_valid.write(start);
    wr_ready.write(ready);
    wr_ack.write(ack);
    return start || ready || ack;
  }

  void Run() {
    ResetBlocks();
    SequencerOutputs before_quiet_edge;
    bool last_edge_quiet = false;
    for (;;) {
      const SequencerOutputs out = SequencerOut();
      const bool fed_allocator = FeedAllocator();
      const bool fed_sequencer = FeedSequencer(out);
      const bool quiet = !fed_allocator && !fed_sequencer;
      // With no inputs the blocks hold still once a quiet edge changed nothing: sleep until
      // the model hands over more work.
      if (quiet && last_edge_quiet && out == before_quiet_edge) {
        wait(wake);
        last_edge_quiet = false;
        continue;
      }
      if (quiet) before_quiet_edge = out;
      last_edge_quiet = quiet;
      Cycle();
      if (fed_allocator) CheckAllocator();
    }
  }

  RtlAdapter& owner;
  const sc_core::sc_time half;
  /** Where each block's VCD goes (allocator, sequencer); empty: no tracing. */
  const std::vector<std::string> vcd_paths;
  std::vector<std::unique_ptr<VerilatedVcdSc>> vcds;
  sc_core::sc_event wake;

  sc_core::sc_signal<bool> clk{"clk"};
  sc_core::sc_signal<bool> rst_n{"rst_n"};
  // Allocator ports.
  sc_core::sc_signal<uint32_t> rx_limit{"rx_limit"};
  sc_core::sc_signal<uint32_t> tx_limit{"tx_limit"};
  sc_core::sc_signal<bool> req_valid{"req_valid"};
  sc_core::sc_signal<bool> req_ready{"req_ready"};
  sc_core::sc_signal<uint32_t> req_op{"req_op"};
  sc_core::sc_signal<bool> req_kind{"req_kind"};
  sc_core::sc_signal<uint32_t> req_task{"req_task"};
  sc_core::sc_signal<uint32_t> req_window{"req_window"};
  sc_core::sc_signal<uint32_t> req_cb{"req_cb"};
  sc_core::sc_signal<uint32_t> req_dtb{"req_dtb"};
  sc_core::sc_signal<bool> rsp_valid{"rsp_valid"};
  sc_core::sc_signal<uint32_t> rsp_op{"rsp_op"};
  sc_core::sc_signal<bool> rsp_ok{"rsp_ok"};
  sc_core::sc_signal<bool> rsp_error{"rsp_error"};
  sc_core::sc_signal<uint32_t> rsp_id{"rsp_id"};
  sc_core::sc_signal<bool> rsp_fetched{"rsp_fetched"};
  sc_core::sc_signal<bool> rsp_flushed{"rsp_flushed"};
  sc_core::sc_signal<uint32_t> rx_active{"rx_active"};
  sc_core::sc_signal<uint32_t> tx_active{"tx_active"};
  sc_core::sc_signal<uint32_t> queue_depth{"queue_depth"};
  sc_core::sc_signal<uint32_t> free_cbs{"free_cbs"};
  sc_core::sc_signal<uint32_t> free_dtbs{"free_dtbs"};
  // Sequencer ports.
  sc_core::sc_signal<bool> start_valid{"start_valid"};
  sc_core::sc_signal<bool> start_ready{"start_ready"};
  sc_core::sc_signal<uint64_t> start_base{"start_base"};
  sc_core::sc_signal<uint32_t> start_len{"start_len"};
  sc_core::sc_signal<uint32_t> start_line_bytes{"start_line_bytes"};
  sc_core::sc_signal<bool> wr_valid{"wr_valid"};
  sc_core::sc_signal<bool> wr_ready{"wr_ready"};
  sc_core::sc_signal<uint64_t> wr_addr{"wr_addr"};
  sc_core::sc_signal<uint32_t> wr_bytes{"wr_bytes"};
  sc_core::sc_signal<bool> wr_is_first_line{"wr_is_first_line"};
  sc_core::sc_signal<bool> wr_ack{"wr_ack"};
  sc_core::sc_signal<bool> body_coherent{"body_coherent"};
  sc_core::sc_signal<bool> done{"done"};
  sc_core::sc_signal<bool> ack_error{"ack_error"};

  Vtask_buffer_allocator allocator;
  Vrx_dma_sequencer sequencer;

  /** The DTB operation presented before the last edge. */
  DtbOp pending_op{DtbOp::Kind::kAlloc, 0};
  /** The frame the sequencer is working on, and how far it has got. */
  std::shared_ptr<RxFrame> seq_frame;
  uint64_t next_body_addr = 0;
  uint32_t body_writes = 0;
  uint32_t body_acks = 0;
  bool first_accepted = false;
  bool first_acked = false;
};

RtlAdapter::RtlAdapter(kernel::EventQueue& events, host::HostMemory& host, uint16_t adapter_id,
                       uint32_t line_bytes, const func::AdapterTiming& timing,
                       const fw::MicrocodeConfig& microcode,
                       const func::AdapterResources& resources, const SystemcTiming& systemc,
                       const std::string& vcd_prefix)
    : SystemcAdapter(events, host, adapter_id, line_bytes, timing, microcode, resources, systemc),
      blocks_(std::make_unique<Blocks>(("rtl" + std::to_string(adapter_id)).c_str(), *this,
                                       systemc.cycle_ps / 2, VcdPaths(vcd_prefix, adapter_id))) {}

std::vector<std::string> RtlAdapter::VcdPaths(const std::string& vcd_prefix, uint16_t adapter_id) {
  if (vcd_prefix.empty()) return {};
  const std::string base = fmt::format("{}.a{}.", vcd_prefix, adapter_id);
  return {base + "allocator.vcd", base + "rx_sequencer.vcd"};
}

RtlAdapter::~RtlAdapter() {
  blocks_->allocator.final();
  blocks_->sequencer.final();
}

void RtlAdapter::Wake() { Kernel::NotifyAt(blocks_->wake, NowPs()); }

void RtlAdapter::Mismatch(const std::string& what) {
  if (rtl_mismatches_++ == 0) first_mismatch_ = what;
}

fw::DtbId RtlAdapter::AllocDtb() {
  const fw::DtbId dtb = SystemcAdapter::AllocDtb();
  // A refusal is not always "none free" (waiting payloads go first): only grants are mirrored.
  if (dtb != fw::kNoDtb) {
    dtb_ops_.push_back(DtbOp{DtbOp::Kind::kAlloc, dtb});
    Wake();
  }
  return dtb;
}

void RtlAdapter::ReleaseDtb(fw::DtbId dtb) {
  // Queued before the release hands the DTB on to a waiting payload.
  dtb_ops_.push_back(DtbOp{DtbOp::Kind::kFree, dtb});
  Wake();
  SystemcAdapter::ReleaseDtb(dtb);
}

void RtlAdapter::OnPayloadDtbTaken(fw::DtbId dtb) {
  dtb_ops_.push_back(DtbOp{DtbOp::Kind::kAlloc, dtb});
  Wake();
}

void RtlAdapter::OnHardwareReset() {
  dtb_ops_.clear();
  dtb_ops_.push_back(DtbOp{DtbOp::Kind::kReset, 0});
  frames_.clear();
  open_frames_.clear();
  Wake();
}

void RtlAdapter::StartDmaToHost(const fw::DmaToHost& req) {
  bool rx = false;
  for (const fw::Microcode::TaskInfo& t : microcode().BusyTasks()) {
    if (t.id == req.tag) rx = t.kind == fw::TaskKind::kRx;
  }
  const uint32_t line = CacheLineBytes();
  if (rx && req.prefix_len == 0 && req.dtb_len > 0) {
    // The body: every line after the first, from the DTB.
    auto f = std::make_shared<RxFrame>();
    f->task = req.tag;
    f->base = req.host_addr - line;
    f->payload_len = req.dtb_len + line - abi::kRecvHeaderBytes;
    f->has_body = true;
    f->body_addr = req.host_addr;
    f->body_len = req.dtb_len;
    open_frames_[req.tag] = f;
    frames_.push_back(f);
    Wake();
  } else if (rx && req.prefix_len == abi::kRecvHeaderBytes) {
    // The first line: the receive frame header and the payload's start.
    abi::RecvFrameHeader header;
    std::memcpy(&header, req.prefix, sizeof(header));
    std::shared_ptr<RxFrame>& f = open_frames_[req.tag];
    if (!f) {
      f = std::make_shared<RxFrame>();
      f->task = req.tag;
      f->base = req.host_addr;
      f->payload_len = header.len_bytes;
      frames_.push_back(f);
    } else if (f->payload_len != header.len_bytes) {
      Mismatch(fmt::format("frame at {:#x}: body implies {} payload bytes, header says {}", f->base,
                           f->payload_len, header.len_bytes));
    }
    f->first_issued = true;
    f->first_addr = req.host_addr;
    f->first_len = req.prefix_len + req.dtb_len;
    Wake();
  }
  SystemcAdapter::StartDmaToHost(req);
}

void RtlAdapter::OnDmaCompleted(const DmaJob& job, fw::DmaStatus status) {
  static_cast<void>(status);
  if (!job.to_host) return;
  auto it = open_frames_.find(job.tag);
  if (it == open_frames_.end()) return;
  RxFrame& f = *it->second;
  if (f.has_body && !f.body_done && job.host_addr == f.body_addr) {
    f.body_done = true;
  } else if (f.first_issued && job.host_addr == f.first_addr) {
    f.first_done = true;
    open_frames_.erase(it);
  } else {
    return;
  }
  Wake();
}

std::vector<std::pair<std::string_view, uint64_t>> RtlAdapter::ExtraCounters() const {
  std::vector<std::pair<std::string_view, uint64_t>> counters = SystemcAdapter::ExtraCounters();
  counters.emplace_back("rtl_ops", rtl_ops_);
  counters.emplace_back("rtl_mismatches", rtl_mismatches_);
  return counters;
}

}  // namespace nicsim::hw::systemc
