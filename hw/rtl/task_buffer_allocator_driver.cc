// SPDX-License-Identifier: Apache-2.0
// Task and buffer allocator driver: binds sc_signals to the Verilated SystemC module and clocks it
// from C++ so a test or a host model can step it like the reference model.
#include "hw/rtl/task_buffer_allocator_driver.h"

#include "Vtask_buffer_allocator.h"
#include "hw/rtl/internal.h"

namespace nicsim::hw::rtl {

struct TaskBufferAllocatorDriver::Impl {
  explicit Impl(const std::string& name, const std::string& vcd)
      : clock(name, vcd),
        rst_n(ScName(name, "rst_n").c_str()),
        rx_limit(ScName(name, "rx_limit").c_str()),
        tx_limit(ScName(name, "tx_limit").c_str()),
        req_valid(ScName(name, "req_valid").c_str()),
        req_ready(ScName(name, "req_ready").c_str()),
        req_op(ScName(name, "req_op").c_str()),
        req_kind(ScName(name, "req_kind").c_str()),
        req_task(ScName(name, "req_task").c_str()),
        req_window(ScName(name, "req_window").c_str()),
        req_cb(ScName(name, "req_cb").c_str()),
        req_dtb(ScName(name, "req_dtb").c_str()),
        rsp_valid(ScName(name, "rsp_valid").c_str()),
        rsp_op(ScName(name, "rsp_op").c_str()),
        rsp_ok(ScName(name, "rsp_ok").c_str()),
        rsp_error(ScName(name, "rsp_error").c_str()),
        rsp_id(ScName(name, "rsp_id").c_str()),
        rsp_fetched(ScName(name, "rsp_fetched").c_str()),
        rsp_flushed(ScName(name, "rsp_flushed").c_str()),
        rx_active(ScName(name, "rx_active").c_str()),
        tx_active(ScName(name, "tx_active").c_str()),
        queue_depth(ScName(name, "queue_depth").c_str()),
        free_cbs(ScName(name, "free_cbs").c_str()),
        free_dtbs(ScName(name, "free_dtbs").c_str()) {
    top = std::make_unique<Vtask_buffer_allocator>(name.c_str());
    top->clk(clock.clk);
    top->rst_n(rst_n);
    top->rx_limit(rx_limit);
    top->tx_limit(tx_limit);
    top->req_valid(req_valid);
    top->req_ready(req_ready);
    top->req_op(req_op);
    top->req_kind(req_kind);
    top->req_task(req_task);
    top->req_window(req_window);
    top->req_cb(req_cb);
    top->req_dtb(req_dtb);
    top->rsp_valid(rsp_valid);
    top->rsp_op(rsp_op);
    top->rsp_ok(rsp_ok);
    top->rsp_error(rsp_error);
    top->rsp_id(rsp_id);
    top->rsp_fetched(rsp_fetched);
    top->rsp_flushed(rsp_flushed);
    top->rx_active(rx_active);
    top->tx_active(tx_active);
    top->queue_depth(queue_depth);
    top->free_cbs(free_cbs);
    top->free_dtbs(free_dtbs);
    Apply(AllocatorInputs{});
  }

  ~Impl() {
    clock.CloseTrace();
    top->final();
  }

  void Apply(const AllocatorInputs& raw) {
    const AllocatorInputs in = raw.Masked(params);
    rx_limit.write(in.rx_limit);
    tx_limit.write(in.tx_limit);
    req_valid.write(in.req_valid);
    req_op.write(static_cast<uint32_t>(in.req_op));
    req_kind.write(in.req_kind == TaskKind::kTx);
    req_task.write(in.req_task);
    req_window.write(in.req_window);
    req_cb.write(in.req_cb);
    req_dtb.write(in.req_dtb);
  }

  void StartTrace() {
    clock.StartTrace([this](VerilatedVcdSc* vcd) { top->trace(vcd, 99); });
  }

  const AllocatorParams params{};
  ScClocking clock;
  sc_core::sc_signal<bool> rst_n;
  sc_core::sc_signal<uint32_t> rx_limit;
  sc_core::sc_signal<uint32_t> tx_limit;
  sc_core::sc_signal<bool> req_valid;
  sc_core::sc_signal<bool> req_ready;
  sc_core::sc_signal<uint32_t> req_op;
  sc_core::sc_signal<bool> req_kind;
  sc_core::sc_signal<uint32_t> req_task;
  sc_core::sc_signal<uint32_t> req_window;
  sc_core::sc_signal<uint32_t> req_cb;
  sc_core::sc_signal<uint32_t> req_dtb;
  sc_core::sc_signal<bool> rsp_valid;
  sc_core::sc_signal<uint32_t> rsp_op;
  sc_core::sc_signal<bool> rsp_ok;
  sc_core::sc_signal<bool> rsp_error;
  sc_core::sc_signal<uint32_t> rsp_id;
  sc_core::sc_signal<bool> rsp_fetched;
  sc_core::sc_signal<bool> rsp_flushed;
  sc_core::sc_signal<uint32_t> rx_active;
  sc_core::sc_signal<uint32_t> tx_active;
  sc_core::sc_signal<uint32_t> queue_depth;
  sc_core::sc_signal<uint32_t> free_cbs;
  sc_core::sc_signal<uint32_t> free_dtbs;
  std::unique_ptr<Vtask_buffer_allocator> top;
};

TaskBufferAllocatorDriver::TaskBufferAllocatorDriver(const std::string& name,
                                                     const std::string& vcd_path)
    : impl_(std::make_unique<Impl>(name, RtlVcdPath(vcd_path, name))) {}

TaskBufferAllocatorDriver::~TaskBufferAllocatorDriver() = default;

void TaskBufferAllocatorDriver::Reset() {
  impl_->StartTrace();
  impl_->Apply(AllocatorInputs{});
  impl_->rst_n.write(false);
  impl_->clock.Cycle();
  impl_->clock.Cycle();
  impl_->rst_n.write(true);
  impl_->clock.Settle();
}

void TaskBufferAllocatorDriver::Clock(const AllocatorInputs& in) {
  impl_->StartTrace();
  impl_->Apply(in);
  impl_->clock.Cycle();
}

AllocatorOutputs TaskBufferAllocatorDriver::Outputs() const {
  AllocatorOutputs out;
  out.req_ready = impl_->req_ready.read();
  out.rsp_valid = impl_->rsp_valid.read();
  out.rsp_op = static_cast<AllocatorOp>(impl_->rsp_op.read());
  out.rsp_ok = impl_->rsp_ok.read();
  out.rsp_error = impl_->rsp_error.read();
  out.rsp_id = impl_->rsp_id.read();
  out.rsp_fetched = impl_->rsp_fetched.read();
  out.rsp_flushed = impl_->rsp_flushed.read();
  out.rx_active = impl_->rx_active.read();
  out.tx_active = impl_->tx_active.read();
  out.queue_depth = impl_->queue_depth.read();
  out.free_cbs = impl_->free_cbs.read();
  out.free_dtbs = impl_->free_dtbs.read();
  return out;
}

uint64_t TaskBufferAllocatorDriver::cycles() const { return impl_->clock.cycles(); }

const std::string& TaskBufferAllocatorDriver::vcd_path() const { return impl_->clock.vcd_path(); }

void TaskBufferAllocatorDriver::FlushTrace() { impl_->clock.FlushTrace(); }

}  // namespace nicsim::hw::rtl
