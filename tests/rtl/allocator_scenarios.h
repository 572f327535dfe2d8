// SPDX-License-Identifier: Apache-2.0
// Directed allocator scenarios and the random stimulus, written once against the common
// Reset/Clock/Outputs interface so they run on the model alone and on RTL + model in step.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "base/rng.h"
#include "hw/rtl/task_buffer_allocator_model.h"

namespace nicsim::hw::rtl::testing {

inline AllocatorInputs Req(AllocatorOp op) {
  AllocatorInputs in;
  in.req_valid = true;
  in.req_op = op;
  return in;
}
inline AllocatorInputs AllocTask(TaskKind kind, uint32_t rx_limit = 16, uint32_t tx_limit = 16) {
  AllocatorInputs in = Req(AllocatorOp::kAllocTask);
  in.req_kind = kind;
  in.rx_limit = rx_limit;
  in.tx_limit = tx_limit;
  return in;
}
inline AllocatorInputs FreeTask(uint32_t task) {
  AllocatorInputs in = Req(AllocatorOp::kFreeTask);
  in.req_task = task;
  return in;
}
inline AllocatorInputs Wake(uint32_t task) {
  AllocatorInputs in = Req(AllocatorOp::kWake);
  in.req_task = task;
  return in;
}
inline AllocatorInputs Pop() { return Req(AllocatorOp::kPopDispatch); }
inline AllocatorInputs Bind(uint32_t window, TaskKind kind) {
  AllocatorInputs in = Req(AllocatorOp::kBindCb);
  in.req_window = window;
  in.req_kind = kind;
  return in;
}
inline AllocatorInputs Unbind(uint32_t cb, TaskKind kind) {
  AllocatorInputs in = Req(AllocatorOp::kUnbindCb);
  in.req_cb = cb;
  in.req_kind = kind;
  return in;
}
inline AllocatorInputs AllocDtb() { return Req(AllocatorOp::kAllocDtb); }
inline AllocatorInputs FreeDtb(uint32_t dtb) {
  AllocatorInputs in = Req(AllocatorOp::kFreeDtb);
  in.req_dtb = dtb;
  return in;
}

/** Applies one request and returns its response. */
template <typename Dut>
AllocatorOutputs Do(Dut& dut, const AllocatorInputs& in) {
  dut.Clock(in);
  return dut.Outputs();
}

/** Expects a successful response carrying `id`. */
#define EXPECT_OK_ID(rsp, id)                                                   \
  do {                                                                          \
    const AllocatorOutputs r_ = (rsp);                                          \
    EXPECT_TRUE((r_.rsp_valid && r_.rsp_ok && !r_.rsp_error)) << r_.ToString(); \
    EXPECT_EQ(r_.rsp_id, static_cast<uint32_t>(id)) << r_.ToString();           \
  } while (0)
/** Expects "none": not ok, not an error. */
#define EXPECT_NONE(rsp)                                                       \
  do {                                                                         \
    const AllocatorOutputs r_ = (rsp);                                         \
    EXPECT_TRUE(r_.rsp_valid && !r_.rsp_ok && !r_.rsp_error) << r_.ToString(); \
  } while (0)
/** Expects an error response. */
#define EXPECT_ALLOC_ERROR(rsp)                                               \
  do {                                                                        \
    const AllocatorOutputs r_ = (rsp);                                        \
    EXPECT_TRUE(r_.rsp_valid && !r_.rsp_ok && r_.rsp_error) << r_.ToString(); \
  } while (0)

template <typename Dut>
void CheckResetState(Dut& dut) {
  dut.Reset();
  const AllocatorOutputs o = dut.Outputs();
  EXPECT_TRUE(o.req_ready);
  EXPECT_FALSE(o.rsp_valid);
  EXPECT_EQ(o.rx_active, 0u);
  EXPECT_EQ(o.tx_active, 0u);
  EXPECT_EQ(o.queue_depth, 0u);
  EXPECT_EQ(o.free_cbs, 16u);
  EXPECT_EQ(o.free_dtbs, 8u);
  dut.Clock(AllocatorInputs{});  // idle cycle: no response
  EXPECT_FALSE(dut.Outputs().rsp_valid);
}

template <typename Dut>
void CheckAllocatesLowestFreeTaskWithinLimits(Dut& dut) {
  dut.Reset();
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kRx, 2, 16)), 0);
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kRx, 2, 16)), 1);
  EXPECT_NONE(Do(dut, AllocTask(TaskKind::kRx, 2, 16)));  // rx at its limit
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kTx, 2, 16)), 2);
  EXPECT_OK_ID(Do(dut, FreeTask(0)), 0);
  EXPECT_EQ(dut.Outputs().rx_active, 1u);
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kTx, 2, 16)),
               0);  // lowest free index
  EXPECT_EQ(dut.Outputs().tx_active, 2u);
  EXPECT_ALLOC_ERROR(Do(dut, FreeTask(5)));  // never allocated
  for (uint32_t t = 3; t < 16; ++t) EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kTx)), t);
  EXPECT_NONE(Do(dut, AllocTask(TaskKind::kRx)));  // pool exhausted
  EXPECT_EQ(dut.Outputs().tx_active, 15u);
  EXPECT_NONE(Do(dut, AllocTask(TaskKind::kTx, 16, 0)));  // a limit of 0 admits none
}

template <typename Dut>
void CheckDispatchQueueIsFifo(Dut& dut) {
  dut.Reset();
  for (uint32_t t = 0; t < 3; ++t) EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kRx)), t);
  EXPECT_ALLOC_ERROR(Do(dut, Pop()));  // empty queue
  EXPECT_OK_ID(Do(dut, Wake(2)), 2);
  EXPECT_OK_ID(Do(dut, Wake(0)), 0);
  EXPECT_ALLOC_ERROR(Do(dut, Wake(0)));      // already queued
  EXPECT_ALLOC_ERROR(Do(dut, Wake(7)));      // a free task
  EXPECT_ALLOC_ERROR(Do(dut, FreeTask(2)));  // queued tasks belong to the scheduler
  EXPECT_OK_ID(Do(dut, Wake(1)), 1);
  EXPECT_EQ(dut.Outputs().queue_depth, 3u);
  EXPECT_OK_ID(Do(dut, Pop()), 2);
  EXPECT_OK_ID(Do(dut, Pop()), 0);
  EXPECT_OK_ID(Do(dut, Wake(2)), 2);
  EXPECT_OK_ID(Do(dut, Pop()), 1);
  EXPECT_OK_ID(Do(dut, Pop()), 2);
  EXPECT_ALLOC_ERROR(Do(dut, Pop()));
  EXPECT_OK_ID(Do(dut, FreeTask(2)), 2);
  // Every task queued at once fits the NUM_TASKS-deep ring, across its wrap point.
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kTx)), 2);
  for (uint32_t t = 3; t < 16; ++t) EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kTx)), t);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_OK_ID(Do(dut, Wake((i + 5) % 16)), (i + 5) % 16);
  EXPECT_EQ(dut.Outputs().queue_depth, 16u);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_OK_ID(Do(dut, Pop()), (i + 5) % 16);
  EXPECT_EQ(dut.Outputs().queue_depth, 0u);
}

template <typename Dut>
void CheckTasksOfOneWindowShareACb(Dut& dut) {
  dut.Reset();
  AllocatorOutputs r = Do(dut, Bind(5, TaskKind::kRx));
  EXPECT_OK_ID(r, 0);
  EXPECT_TRUE(r.rsp_fetched);
  EXPECT_OK_ID(Do(dut, Bind(7, TaskKind::kTx)), 1);
  r = Do(dut, Bind(5, TaskKind::kTx));
  EXPECT_OK_ID(r, 0);
  EXPECT_FALSE(r.rsp_fetched);  // shared: no second LMT fetch
  EXPECT_EQ(dut.Outputs().free_cbs, 14u);
  EXPECT_ALLOC_ERROR(Do(dut, Unbind(1, TaskKind::kRx)));  // no rx binder on CB 1
  r = Do(dut, Unbind(0, TaskKind::kRx));
  EXPECT_OK_ID(r, 0);
  EXPECT_FALSE(r.rsp_flushed);  // a tx task still holds it
  r = Do(dut, Unbind(0, TaskKind::kTx));
  EXPECT_OK_ID(r, 0);
  EXPECT_TRUE(r.rsp_flushed);                             // the last binder flushes
  EXPECT_ALLOC_ERROR(Do(dut, Unbind(0, TaskKind::kTx)));  // CB 0 is free now
  r = Do(dut, Bind(9, TaskKind::kRx));
  EXPECT_OK_ID(r, 0);  // lowest free CB
  EXPECT_TRUE(r.rsp_fetched);
  EXPECT_OK_ID(Do(dut, Bind(5, TaskKind::kRx)),
               2);  // window 5 lost its CB: a new one
}

template <typename Dut>
void CheckCbsRunOutAndBindCountsSaturate(Dut& dut) {
  dut.Reset();
  for (uint32_t w = 0; w < 16; ++w) EXPECT_OK_ID(Do(dut, Bind(100 + w, TaskKind::kRx)), w);
  EXPECT_EQ(dut.Outputs().free_cbs, 0u);
  EXPECT_NONE(Do(dut, Bind(99, TaskKind::kRx)));  // every CB caches another window
  EXPECT_OK_ID(Do(dut, Bind(103, TaskKind::kTx)),
               3);  // an existing window still binds
  for (uint32_t i = 0; i < 16; ++i) EXPECT_OK_ID(Do(dut, Bind(104, TaskKind::kTx)), 4);
  EXPECT_ALLOC_ERROR(Do(dut, Bind(104, TaskKind::kTx)));  // 16 tx binders: no more tasks
  EXPECT_OK_ID(Do(dut, Unbind(7, TaskKind::kRx)), 7);
  EXPECT_OK_ID(Do(dut, Bind(99, TaskKind::kRx)), 7);
}

template <typename Dut>
void CheckDtbFreeListIsLifo(Dut& dut) {
  dut.Reset();
  EXPECT_OK_ID(Do(dut, AllocDtb()), 0);
  EXPECT_OK_ID(Do(dut, AllocDtb()), 1);
  EXPECT_OK_ID(Do(dut, AllocDtb()), 2);
  EXPECT_OK_ID(Do(dut, FreeDtb(1)), 1);
  EXPECT_OK_ID(Do(dut, FreeDtb(0)), 0);
  EXPECT_ALLOC_ERROR(Do(dut, FreeDtb(0)));  // double free
  EXPECT_ALLOC_ERROR(Do(dut, FreeDtb(6)));  // never allocated
  EXPECT_OK_ID(Do(dut, AllocDtb()), 0);     // most recently freed first
  EXPECT_OK_ID(Do(dut, AllocDtb()), 1);
  for (uint32_t d = 3; d < 8; ++d) EXPECT_OK_ID(Do(dut, AllocDtb()), d);
  EXPECT_EQ(dut.Outputs().free_dtbs, 0u);
  EXPECT_NONE(Do(dut, AllocDtb()));
}

template <typename Dut>
void CheckIllegalOpsChangeNothing(Dut& dut) {
  dut.Reset();
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kRx)), 0);
  EXPECT_OK_ID(Do(dut, Bind(3, TaskKind::kRx)), 0);
  EXPECT_OK_ID(Do(dut, AllocDtb()), 0);
  const AllocatorOutputs before = dut.Outputs();
  for (uint8_t op = kAllocatorOpCount; op < 16; ++op) {
    const AllocatorOutputs r = Do(dut, Req(static_cast<AllocatorOp>(op)));
    EXPECT_ALLOC_ERROR(r);
    EXPECT_EQ(static_cast<uint32_t>(r.rsp_op), op);
  }
  EXPECT_ALLOC_ERROR(Do(dut, FreeTask(1)));
  EXPECT_ALLOC_ERROR(Do(dut, Unbind(1, TaskKind::kRx)));
  EXPECT_ALLOC_ERROR(Do(dut, Unbind(0, TaskKind::kTx)));
  EXPECT_ALLOC_ERROR(Do(dut, FreeDtb(1)));
  EXPECT_ALLOC_ERROR(Do(dut, Pop()));
  const AllocatorOutputs after = dut.Outputs();
  EXPECT_EQ(after.rx_active, before.rx_active);
  EXPECT_EQ(after.free_cbs, before.free_cbs);
  EXPECT_EQ(after.free_dtbs, before.free_dtbs);
  EXPECT_EQ(after.queue_depth, before.queue_depth);
  // And the state still works: the same resources come back next.
  EXPECT_OK_ID(Do(dut, AllocTask(TaskKind::kRx)), 1);
  EXPECT_OK_ID(Do(dut, Bind(3, TaskKind::kTx)), 0);
  EXPECT_OK_ID(Do(dut, AllocDtb()), 1);
}

/**
 * Random allocator traffic: mostly legal-looking requests on small id and window ranges so
 * resources run out and come back, in phases that favour allocation or release, with occasional
 * limit changes, idle cycles, illegal opcodes and out-of-range ids.
 */
class AllocatorStimulus {
 public:
  explicit AllocatorStimulus(uint64_t seed) : rng_(seed, "rtl_allocator") {}

  AllocatorInputs Next() {
    if (--phase_left_ == 0) {
      phase_left_ = static_cast<uint32_t>(rng_.Between(200, 2000));
      grow_ = rng_.Chance(0.5);
      if (rng_.Chance(0.3)) {
        rx_limit_ = static_cast<uint32_t>(rng_.Between(0, 17));
        tx_limit_ = static_cast<uint32_t>(rng_.Between(0, 17));
      } else {
        rx_limit_ = tx_limit_ = 16;
      }
    }
    AllocatorInputs in;
    in.req_valid = !rng_.Chance(0.05);
    in.req_kind = rng_.Chance(0.5) ? TaskKind::kTx : TaskKind::kRx;
    in.req_task = static_cast<uint32_t>(rng_.Below(16));
    in.req_window = rng_.Chance(0.02) ? static_cast<uint32_t>(rng_.Next())
                                      : static_cast<uint32_t>(rng_.Below(20));
    in.req_cb = static_cast<uint32_t>(rng_.Below(16));
    in.req_dtb = static_cast<uint32_t>(rng_.Below(8));
    in.rx_limit = rx_limit_;
    in.tx_limit = tx_limit_;
    // Allocation-side and release-side opcodes, weighted by the phase.
    static constexpr AllocatorOp kTake[] = {AllocatorOp::kAllocTask, AllocatorOp::kWake,
                                            AllocatorOp::kBindCb, AllocatorOp::kAllocDtb};
    static constexpr AllocatorOp kGive[] = {AllocatorOp::kFreeTask, AllocatorOp::kPopDispatch,
                                            AllocatorOp::kUnbindCb, AllocatorOp::kFreeDtb};
    if (rng_.Chance(0.01)) {
      in.req_op = static_cast<AllocatorOp>(rng_.Between(0, 15));
    } else if (rng_.Chance(grow_ ? 0.7 : 0.3)) {
      in.req_op = kTake[rng_.Below(4)];
    } else {
      in.req_op = kGive[rng_.Below(4)];
    }
    return in;
  }

 private:
  Rng rng_;
  uint32_t phase_left_ = 1;
  bool grow_ = true;
  uint32_t rx_limit_ = 16;
  uint32_t tx_limit_ = 16;
};

}  // namespace nicsim::hw::rtl::testing
