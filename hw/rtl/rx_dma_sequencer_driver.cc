// SPDX-License-Identifier: Apache-2.0
// Receive DMA sequencer driver: binds sc_signals to the Verilated SystemC module and clocks it from
// C++ so a test or a host model can step it like the reference model.
#include "hw/rtl/rx_dma_sequencer_driver.h"

#include "Vrx_dma_sequencer.h"
#include "hw/rtl/internal.h"

namespace nicsim::hw::rtl {

struct RxDmaSequencerDriver::Impl {
  explicit Impl(const std::string& name, const std::string& vcd)
      : clock(name, vcd),
        rst_n(ScName(name, "rst_n").c_str()),
        start_valid(ScName(name, "start_valid").c_str()),
        start_ready(ScName(name, "start_ready").c_str()),
        start_base(ScName(name, "start_base").c_str()),
        start_len(ScName(name, "start_len").c_str()),
        start_line_bytes(ScName(name, "start_line_bytes").c_str()),
        wr_valid(ScName(name, "wr_valid").c_str()),
        wr_ready(ScName(name, "wr_ready").c_str()),
        wr_addr(ScName(name, "wr_addr").c_str()),
        wr_bytes(ScName(name, "wr_bytes").c_str()),
        wr_is_first_line(ScName(name, "wr_is_first_line").c_str()),
        wr_ack(ScName(name, "wr_ack").c_str()),
        body_coherent(ScName(name, "body_coherent").c_str()),
        done(ScName(name, "done").c_str()),
        ack_error(ScName(name, "ack_error").c_str()) {
    top = std::make_unique<Vrx_dma_sequencer>(name.c_str());
    top->clk(clock.clk);
    top->rst_n(rst_n);
    top->start_valid(start_valid);
    top->start_ready(start_ready);
    top->start_base(start_base);
    top->start_len(start_len);
    top->start_line_bytes(start_line_bytes);
    top->wr_valid(wr_valid);
    top->wr_ready(wr_ready);
    top->wr_addr(wr_addr);
    top->wr_bytes(wr_bytes);
    top->wr_is_first_line(wr_is_first_line);
    top->wr_ack(wr_ack);
    top->body_coherent(body_coherent);
    top->done(done);
    top->ack_error(ack_error);
    Apply(SequencerInputs{});
  }

  ~Impl() {
    clock.CloseTrace();
    top->final();
  }

  void Apply(const SequencerInputs& in) {
    start_valid.write(in.start_valid);
    start_base.write(in.start_base);
    start_len.write(in.start_len & 0xFFFFu);
    start_line_bytes.write(in.start_line_bytes & 0xFFu);
    wr_ready.write(in.wr_ready);
    wr_ack.write(in.wr_ack);
  }

  void StartTrace() {
    clock.StartTrace([this](VerilatedVcdSc* vcd) { top->trace(vcd, 99); });
  }

  ScClocking clock;
  sc_core::sc_signal<bool> rst_n;
  sc_core::sc_signal<bool> start_valid;
  sc_core::sc_signal<bool> start_ready;
  sc_core::sc_signal<uint64_t> start_base;
  sc_core::sc_signal<uint32_t> start_len;
  sc_core::sc_signal<uint32_t> start_line_bytes;
  sc_core::sc_signal<bool> wr_valid;
  sc_core::sc_signal<bool> wr_ready;
  sc_core::sc_signal<uint64_t> wr_addr;
  sc_core::sc_signal<uint32_t> wr_bytes;
  sc_core::sc_signal<bool> wr_is_first_line;
  sc_core::sc_signal<bool> wr_ack;
  sc_core::sc_signal<bool> body_coherent;
  sc_core::sc_signal<bool> done;
  sc_core::sc_signal<bool> ack_error;
  std::unique_ptr<Vrx_dma_sequencer> top;
};

RxDmaSequencerDriver::RxDmaSequencerDriver(const std::string& name, const std::string& vcd_path)
    : impl_(std::make_unique<Impl>(name, RtlVcdPath(vcd_path, name))) {}

RxDmaSequencerDriver::~RxDmaSequencerDriver() = default;

void RxDmaSequencerDriver::Reset() {
  impl_->StartTrace();
  impl_->Apply(SequencerInputs{});
  impl_->rst_n.write(false);
  impl_->clock.Cycle();
  impl_->clock.Cycle();
  impl_->rst_n.write(true);
  impl_->clock.Settle();
}

void RxDmaSequencerDriver::Clock(const SequencerInputs& in) {
  impl_->StartTrace();
  impl_->Apply(in);
  impl_->clock.Cycle();
}

SequencerOutputs RxDmaSequencerDriver::Outputs() const {
  SequencerOutputs out;
  out.start_ready = impl_->start_ready.read();
  out.wr_valid = impl_->wr_valid.read();
  out.wr_addr = impl_->wr_addr.read();
  out.wr_bytes = impl_->wr_bytes.read();
  out.wr_is_first_line = impl_->wr_is_first_line.read();
  out.body_coherent = impl_->body_coherent.read();
  out.done = impl_->done.read();
  out.ack_error = impl_->ack_error.read();
  return out;
}

uint64_t RxDmaSequencerDriver::cycles() const { return impl_->clock.cycles(); }

const std::string& RxDmaSequencerDriver::vcd_path() const { return impl_->clock.vcd_path(); }

void RxDmaSequencerDriver::FlushTrace() { impl_->clock.FlushTrace(); }

}  // namespace nicsim::hw::rtl
