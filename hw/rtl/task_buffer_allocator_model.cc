// SPDX-License-Identifier: Apache-2.0
// Allocator reference model: the RTL's rules, evaluated once per clock edge against the state
// before the edge, exactly as the always_ff block does.
#include "hw/rtl/task_buffer_allocator_model.h"

#include <array>
#include <cstdio>

namespace nicsim::hw::rtl {
namespace {

constexpr std::array<std::string_view, kAllocatorOpCount> kOpNames = {
    "nop",     "alloc_task", "free_task", "wake",     "pop_dispatch",
    "bind_cb", "unbind_cb",  "alloc_dtb", "free_dtb",
};

uint32_t Mask(uint32_t value, uint32_t bits) {
  return bits >= 32 ? value : value & ((1u << bits) - 1);
}

size_t Index(TaskKind kind) { return kind == TaskKind::kRx ? 0 : 1; }

}  // namespace

std::string_view ToString(AllocatorOp op) {
  const auto i = static_cast<size_t>(op);
  return i < kOpNames.size() ? kOpNames[i] : "illegal";
}

uint32_t CountBits(uint32_t n) { return IndexBits(n + 1); }

uint32_t IndexBits(uint32_t n) {
  uint32_t bits = 0;
  while (bits < 32 && (1ull << bits) < n) ++bits;
  return bits;
}

AllocatorInputs AllocatorInputs::Masked(const AllocatorParams& params) const {
  AllocatorInputs m = *this;
  m.req_op = static_cast<AllocatorOp>(static_cast<uint8_t>(req_op) & 0xF);
  m.req_task = Mask(req_task, IndexBits(params.num_tasks));
  m.req_window = Mask(req_window, params.window_bits);
  m.req_cb = Mask(req_cb, IndexBits(params.num_cbs));
  m.req_dtb = Mask(req_dtb, IndexBits(params.num_dtbs));
  m.rx_limit = Mask(rx_limit, CountBits(params.num_tasks));
  m.tx_limit = Mask(tx_limit, CountBits(params.num_tasks));
  return m;
}

bool AllocatorOutputs::operator==(const AllocatorOutputs& o) const {
  return req_ready == o.req_ready && rsp_valid == o.rsp_valid && rsp_op == o.rsp_op &&
         rsp_ok == o.rsp_ok && rsp_error == o.rsp_error && rsp_id == o.rsp_id &&
         rsp_fetched == o.rsp_fetched && rsp_flushed == o.rsp_flushed && rx_active == o.rx_active &&
         tx_active == o.tx_active && queue_depth == o.queue_depth && free_cbs == o.free_cbs &&
         free_dtbs == o.free_dtbs;
}

std::string AllocatorOutputs::ToString() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "ready=%d valid=%d op=%u ok=%d error=%d id=%u fetched=%d flushed=%d "
                "rx_active=%u tx_active=%u queue=%u free_cbs=%u free_dtbs=%u",
                req_ready, rsp_valid, static_cast<unsigned>(rsp_op), rsp_ok, rsp_error, rsp_id,
                rsp_fetched, rsp_flushed, rx_active, tx_active, queue_depth, free_cbs, free_dtbs);
  return buf;
}

TaskBufferAllocatorModel::TaskBufferAllocatorModel(const AllocatorParams& params)
    : params_(params) {
  Reset();
}

void TaskBufferAllocatorModel::Reset() {
  task_busy_.assign(params_.num_tasks, false);
  task_kind_.assign(params_.num_tasks, TaskKind::kRx);
  task_queued_.assign(params_.num_tasks, false);
  active_[0] = active_[1] = 0;
  queue_.clear();
  cbs_.assign(params_.num_cbs, CbState{});
  // Pushed num_dtbs-1 down to 0, so the first allocations hand out 0, 1, 2, ...
  dtb_stack_.clear();
  for (uint32_t i = params_.num_dtbs; i > 0; --i) dtb_stack_.push_back(i - 1);
  dtb_free_.assign(params_.num_dtbs, true);
  out_ = AllocatorOutputs{};
  UpdateStatus();
}

void TaskBufferAllocatorModel::Clock(const AllocatorInputs& raw) {
  const AllocatorInputs in = raw.Masked(params_);
  out_.rsp_valid = in.req_valid;
  out_.rsp_op = in.req_valid ? in.req_op : AllocatorOp::kNop;
  out_.rsp_ok = out_.rsp_error = out_.rsp_fetched = out_.rsp_flushed = false;
  out_.rsp_id = 0;
  if (in.req_valid) Execute(in);
  UpdateStatus();
}

void TaskBufferAllocatorModel::Execute(const AllocatorInputs& in) {
  switch (in.req_op) {
    case AllocatorOp::kNop:
      out_.rsp_ok = true;
      return;
    case AllocatorOp::kAllocTask:
      AllocTask(in);
      return;
    case AllocatorOp::kFreeTask:
      FreeTask(in);
      return;
    case AllocatorOp::kWake:
      Wake(in);
      return;
    case AllocatorOp::kPopDispatch:
      PopDispatch();
      return;
    case AllocatorOp::kBindCb:
      BindCb(in);
      return;
    case AllocatorOp::kUnbindCb:
      UnbindCb(in);
      return;
    case AllocatorOp::kAllocDtb:
      AllocDtb();
      return;
    case AllocatorOp::kFreeDtb:
      FreeDtb(in);
      return;
  }
  // Opcodes 9..15.
  out_.rsp_error = true;
}

void TaskBufferAllocatorModel::AllocTask(const AllocatorInputs& in) {
  const size_t k = Index(in.req_kind);
  // Lowest-index free task, if the kind is under its limit; none is not an error.
  const uint32_t limit = in.req_kind == TaskKind::kRx ? in.rx_limit : in.tx_limit;
  if (active_[k] >= limit) return;
  for (uint32_t t = 0; t < params_.num_tasks; ++t) {
    if (task_busy_[t]) continue;
    task_busy_[t] = true;
    task_kind_[t] = in.req_kind;
    ++active_[k];
    out_.rsp_ok = true;
    out_.rsp_id = t;
    return;
  }
}

void TaskBufferAllocatorModel::FreeTask(const AllocatorInputs& in) {
  const uint32_t t = in.req_task;
  // A queued task belongs to the scheduler until it is popped.
  if (!HeldBySoftware(t)) {
    out_.rsp_error = true;
    return;
  }
  task_busy_[t] = false;
  --active_[Index(task_kind_[t])];
  out_.rsp_ok = true;
  out_.rsp_id = t;
}

void TaskBufferAllocatorModel::Wake(const AllocatorInputs& in) {
  const uint32_t t = in.req_task;
  // At most one queue entry per task, so the NUM_TASKS-deep queue never overflows.
  if (!HeldBySoftware(t)) {
    out_.rsp_error = true;
    return;
  }
  task_queued_[t] = true;
  queue_.push_back(t);
  out_.rsp_ok = true;
  out_.rsp_id = t;
}

void TaskBufferAllocatorModel::PopDispatch() {
  if (queue_.empty()) {
    out_.rsp_error = true;
    return;
  }
  const uint32_t t = queue_.front();
  queue_.pop_front();
  task_queued_[t] = false;
  out_.rsp_ok = true;
  out_.rsp_id = t;
}

void TaskBufferAllocatorModel::BindCb(const AllocatorInputs& in) {
  const size_t k = Index(in.req_kind);
  // Tasks of the same window share its CB; otherwise take the lowest-index free CB.
  for (uint32_t c = 0; c < params_.num_cbs; ++c) {
    CbState& cb = cbs_[c];
    if (!cb.bound || cb.window != in.req_window) continue;
    if (cb.binders[k] == params_.num_tasks) {
      out_.rsp_error = true;
      return;
    }
    ++cb.binders[k];
    out_.rsp_ok = true;
    out_.rsp_id = c;
    return;
  }
  for (uint32_t c = 0; c < params_.num_cbs; ++c) {
    CbState& cb = cbs_[c];
    if (cb.bound) continue;
    cb.bound = true;
    cb.window = in.req_window;
    cb.binders[k] = 1;
    cb.binders[1 - k] = 0;
    out_.rsp_ok = true;
    out_.rsp_fetched = true;
    out_.rsp_id = c;
    return;
  }
}

void TaskBufferAllocatorModel::UnbindCb(const AllocatorInputs& in) {
  const size_t k = Index(in.req_kind);
  const uint32_t c = in.req_cb;
  if (c >= params_.num_cbs || !cbs_[c].bound || cbs_[c].binders[k] == 0) {
    out_.rsp_error = true;
    return;
  }
  CbState& cb = cbs_[c];
  --cb.binders[k];
  out_.rsp_ok = true;
  out_.rsp_id = c;
  // The last binder leaving flushes the LMT and frees the CB.
  if (cb.binders[0] + cb.binders[1] == 0) {
    cb.bound = false;
    out_.rsp_flushed = true;
  }
}

void TaskBufferAllocatorModel::AllocDtb() {
  if (dtb_stack_.empty()) return;
  const uint32_t d = dtb_stack_.back();
  dtb_stack_.pop_back();
  dtb_free_[d] = false;
  out_.rsp_ok = true;
  out_.rsp_id = d;
}

void TaskBufferAllocatorModel::FreeDtb(const AllocatorInputs& in) {
  const uint32_t d = in.req_dtb;
  if (d >= params_.num_dtbs || dtb_free_[d]) {
    out_.rsp_error = true;
    return;
  }
  dtb_stack_.push_back(d);
  dtb_free_[d] = true;
  out_.rsp_ok = true;
  out_.rsp_id = d;
}

void TaskBufferAllocatorModel::UpdateStatus() {
  out_.req_ready = true;
  out_.rx_active = active_[0];
  out_.tx_active = active_[1];
  out_.queue_depth = static_cast<uint32_t>(queue_.size());
  out_.free_cbs = 0;
  for (const CbState& cb : cbs_) out_.free_cbs += cb.bound ? 0 : 1;
  out_.free_dtbs = static_cast<uint32_t>(dtb_stack_.size());
}

}  // namespace nicsim::hw::rtl
