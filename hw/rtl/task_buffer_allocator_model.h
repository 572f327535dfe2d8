// SPDX-License-Identifier: Apache-2.0
// Cycle-level C++ reference model of hw/rtl/task_buffer_allocator.sv: the same ports as plain
// structs, the same per-clock state update, no Verilator dependency.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace nicsim::hw::rtl {

/** Allocator request opcodes: the RTL's 4-bit req_op. Values 9..15 are illegal. */
enum class AllocatorOp : uint8_t {
  kNop = 0,
  kAllocTask = 1,
  kFreeTask = 2,
  kWake = 3,
  kPopDispatch = 4,
  kBindCb = 5,
  kUnbindCb = 6,
  kAllocDtb = 7,
  kFreeDtb = 8,
};

/** Number of legal opcodes. */
inline constexpr uint8_t kAllocatorOpCount = 9;

/** The opcode's name ("alloc_task"), or "illegal". */
std::string_view ToString(AllocatorOp op);

/** The RTL's req_kind: which active limit and bind count an operation uses. */
enum class TaskKind : uint8_t { kRx = 0, kTx = 1 };

/** The RTL's parameters; the Verilated model is built with these defaults. */
struct AllocatorParams {
  /** NUM_TASKS: tasks in the pool, also the dispatch queue depth. */
  uint32_t num_tasks = 16;
  /** NUM_CBS: channel buffers. */
  uint32_t num_cbs = 16;
  /** NUM_DTBS: data transfer buffers. */
  uint32_t num_dtbs = 8;
  /** WINDOW_W: bits of a window number. */
  uint32_t window_bits = 16;
};

/** Bits needed to count 0..n (the RTL's $clog2(n + 1)). */
uint32_t CountBits(uint32_t n);
/** Bits of an index 0..n-1 (the RTL's $clog2(n)). */
uint32_t IndexBits(uint32_t n);

/** Everything the allocator samples at a clock edge. */
struct AllocatorInputs {
  /** A request is presented this cycle. */
  bool req_valid = false;
  AllocatorOp req_op = AllocatorOp::kNop;
  /** ALLOC_TASK, BIND_CB, UNBIND_CB: which kind's limit or bind count. */
  TaskKind req_kind = TaskKind::kRx;
  /** FREE_TASK, WAKE: the task. */
  uint32_t req_task = 0;
  /** BIND_CB: the window whose CB is wanted. */
  uint32_t req_window = 0;
  /** UNBIND_CB: the CB. */
  uint32_t req_cb = 0;
  /** FREE_DTB: the DTB. */
  uint32_t req_dtb = 0;
  /** Most receive tasks active at once. */
  uint32_t rx_limit = 16;
  /** Most transmit tasks active at once. */
  uint32_t tx_limit = 16;

  /** The inputs truncated to the RTL's port widths (what the hardware would see). */
  AllocatorInputs Masked(const AllocatorParams& params) const;
};

/** Every allocator output after a clock edge; rsp_* answer the request of that edge. */
struct AllocatorOutputs {
  /** A request is accepted every cycle out of reset. */
  bool req_ready = true;
  /** A request was accepted at the last edge; rsp_op echoes its opcode. */
  bool rsp_valid = false;
  AllocatorOp rsp_op = AllocatorOp::kNop;
  /** The operation succeeded (alloc/pop/bind found a resource; free/wake/unbind done). */
  bool rsp_ok = false;
  /** The request was illegal and changed nothing. */
  bool rsp_error = false;
  /** The task, CB or DTB the operation handed out or acted on; 0 when not ok. */
  uint32_t rsp_id = 0;
  /** BIND_CB loaded a free CB for the window. */
  bool rsp_fetched = false;
  /** UNBIND_CB released the last binder: flush the LMT; the CB is free. */
  bool rsp_flushed = false;
  /** Busy receive / transmit tasks, queued tasks, unbound CBs and free DTBs. */
  uint32_t rx_active = 0;
  uint32_t tx_active = 0;
  uint32_t queue_depth = 0;
  uint32_t free_cbs = 0;
  uint32_t free_dtbs = 0;

  /** Every field equal (the per-cycle RTL-versus-model comparison). */
  bool operator==(const AllocatorOutputs& o) const;
  /** Some field differs. */
  bool operator!=(const AllocatorOutputs& o) const { return !(*this == o); }
  /** One line, every field, for failure messages. */
  std::string ToString() const;
};

/**
 * The allocator's reference model. Clock() is one rising edge with rst_n high; Reset() is the state
 * after a synchronous reset. The rules are listed in task_buffer_allocator.sv.
 */
class TaskBufferAllocatorModel {
 public:
  /** A model of the RTL built with `params`, in its reset state. */
  explicit TaskBufferAllocatorModel(const AllocatorParams& params = AllocatorParams{});

  /** Frees every task, CB and DTB, empties the dispatch queue, clears the response. */
  void Reset();
  /** One clock edge with `in` applied. */
  void Clock(const AllocatorInputs& in);
  /** The outputs as they stand after the last edge. */
  const AllocatorOutputs& Outputs() const { return out_; }
  /** The parameters the model was built with. */
  const AllocatorParams& params() const { return params_; }

 private:
  struct CbState {
    bool bound = false;
    uint32_t window = 0;
    uint32_t binders[2] = {0, 0};
  };
  void Execute(const AllocatorInputs& in);
  // One method per opcode; each sets the response in out_.
  void AllocTask(const AllocatorInputs& in);
  void FreeTask(const AllocatorInputs& in);
  /** Task `t` exists, is allocated and is not queued for dispatch (the scheduler's then). */
  bool HeldBySoftware(uint32_t t) const {
    return t < params_.num_tasks && task_busy_[t] && !task_queued_[t];
  }
  void Wake(const AllocatorInputs& in);
  void PopDispatch();
  void BindCb(const AllocatorInputs& in);
  void UnbindCb(const AllocatorInputs& in);
  void AllocDtb();
  void FreeDtb(const AllocatorInputs& in);
  void UpdateStatus();

  AllocatorParams params_;
  std::vector<bool> task_busy_;
  std::vector<TaskKind> task_kind_;
  std::vector<bool> task_queued_;
  uint32_t active_[2] = {0, 0};
  std::deque<uint32_t> queue_;
  std::vector<CbState> cbs_;
  /** LIFO free list: back() is the next DTB handed out. */
  std::vector<uint32_t> dtb_stack_;
  std::vector<bool> dtb_free_;
  AllocatorOutputs out_;
};

}  // namespace nicsim::hw::rtl
