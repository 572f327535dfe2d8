// SPDX-License-Identifier: Apache-2.0
// The microcode's resource model on a recording platform: channel buffers shared per window
// and flushed on the last unbind, tasks waiting for CBs, DTBs and header buffers, the work
// manager, the live and snapshot task views, and close window.
#include <gtest/gtest.h>

#include "abi/mmio.h"
#include "firmware/microcode.h"
#include "firmware/task.h"
#include "firmware/task_fifo.h"
#include "tests/firmware/recording_platform.h"

namespace nicsim::fw {
namespace {

using testing::kHostBase;
using testing::RecordingPlatform;

constexpr uint32_t kKey = 0x77;
constexpr uint32_t kSlotBytes = 16 * 128;

uint64_t RecvFifo(uint32_t w) { return kHostBase + w * 0x20000; }
uint64_t SendFifo(uint32_t w) { return kHostBase + 0x800000 + w * 0x10000; }

class ResourcesTest : public ::testing::Test {
 protected:
  void Build(MicrocodeConfig c, uint32_t dtbs = 16, uint32_t header_buffers = 16) {
    platform_ = std::make_unique<RecordingPlatform>(128, dtbs, header_buffers);
    mc_ = std::make_unique<Microcode>(*platform_, c);
    platform_->Attach(mc_.get());
    for (uint32_t w = 0; w < 4; ++w) {
      abi::LmtEntry lmt{};
      lmt.state = static_cast<uint32_t>(abi::WindowState::kOpen);
      lmt.protection_key = kKey;
      lmt.recv_fifo_addr = RecvFifo(w);
      lmt.recv_fifo_frames = 8;
      lmt.line_bytes = 128;
      lmt.send_fifo_addr = SendFifo(w);
      lmt.send_fifo_slots = 8;
      platform_->SetLmt(w, lmt);
    }
  }
  TaskId Arrive(uint32_t window, uint16_t len) {
    abi::WireHeader h{};
    h.dest_adapter = platform_->adapter_id;
    h.dest_window = static_cast<uint16_t>(window);
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.protection_key = kKey;
    return mc_->OnHeaderArrived(reinterpret_cast<const uint8_t*>(&h), sizeof(h), len, true);
  }
  void Payload(TaskId t, uint16_t len) {
    mc_->OnPayloadArrived(t, platform_->StagePayload(std::vector<uint8_t>(len, 3)));
  }
  void PostSlot(uint32_t window, uint32_t slot, uint16_t len) {
    uint8_t* s = platform_->Host(SendFifo(window) + slot * kSlotBytes);
    abi::SendSlotHeader h{};
    h.dest_adapter = 1;
    h.dest_window = 0;
    h.len_bytes = len;
    h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
    h.status = static_cast<uint8_t>(abi::SendSlotStatus::kPosted);
    std::memcpy(s, &h, sizeof(h));
  }
  void Command(abi::GlobalCommand cmd, uint64_t value) {
    mc_->OnMmioCommand(abi::GlobalCommandOffset(cmd), value);
  }
  void WindowCommand(uint32_t w, abi::MmioCommand cmd, uint64_t value) {
    mc_->OnMmioCommand(abi::WindowCommandOffset(w, cmd), value);
  }
  uint64_t Reg(abi::GlobalReg r) { return platform_->ReadGlobalReg(r); }

  std::unique_ptr<RecordingPlatform> platform_;
  std::unique_ptr<Microcode> mc_;
};

TEST_F(ResourcesTest, TasksOfOneWindowShareItsChannelBuffer) {
  Build(MicrocodeConfig{});
  const TaskId a = Arrive(1, 10);
  const TaskId b = Arrive(1, 10);
  const BufferManagerResponse bmr = mc_->Bmr(1);
  EXPECT_NE(bmr.cb, kNoCb);
  EXPECT_EQ(bmr.rx_tasks, 2u);
  EXPECT_EQ(bmr.tx_tasks, 0u);
  EXPECT_EQ(mc_->counters().cb_loads, 1u);
  EXPECT_EQ(mc_->counters().cb_shared, 1u);
  Payload(a, 10);
  Payload(b, 10);
  platform_->CompleteAllDmas();
  EXPECT_EQ(mc_->Bmr(1).cb, kNoCb);
  EXPECT_EQ(mc_->counters().cb_flushes, 1u);
  EXPECT_EQ(platform_->Lmt(1).recv_tail, 2u);  // flushed on the last unbind
}

TEST_F(ResourcesTest, SramShowsAStaleLmtUntilTheChannelBufferIsFlushed) {
  Build(MicrocodeConfig{});
  const TaskId t = Arrive(2, 10);
  ASSERT_NE(t, kNoTask);
  // The CB holds the reserved frame; SRAM still has the old copy.
  EXPECT_EQ(platform_->Lmt(2).recv_next, 0u);
  Command(abi::GlobalCommand::kFlushLmt, 2);
  EXPECT_EQ(platform_->Lmt(2).recv_next, 1u);
  EXPECT_EQ(mc_->Bmr(2).rx_tasks, 1u);  // a flush keeps the CB bound
}

TEST_F(ResourcesTest, ReceiveTaskWaitsForAChannelBufferAndResumesWhenOneFrees) {
  MicrocodeConfig c;
  c.channel_buffers = 1;
  Build(c);
  const TaskId a = Arrive(0, 10);
  EXPECT_TRUE(mc_->CanAcceptHeader(nullptr, 0));  // truncated headers need no CB
  abi::WireHeader h{};
  h.dest_window = 1;
  EXPECT_FALSE(mc_->CanAcceptHeader(reinterpret_cast<uint8_t*>(&h), sizeof(h)));
  h.dest_window = 0;
  EXPECT_TRUE(mc_->CanAcceptHeader(reinterpret_cast<uint8_t*>(&h), sizeof(h)));
  // Offered anyway (the API allows it), the header's task parks in kBind.
  const TaskId b = Arrive(1, 10);
  ASSERT_NE(b, kNoTask);
  EXPECT_EQ(mc_->counters().wait(Resource::kChannelBuffer), 1u);
  Payload(b, 10);
  Payload(a, 10);
  platform_->CompleteAllDmas();
  EXPECT_EQ(mc_->counters().rx_packets, 2u);
  Command(abi::GlobalCommand::kFlushLmt, 1);
  EXPECT_EQ(platform_->Lmt(1).recv_tail, 1u);
}

TEST_F(ResourcesTest, TransmitWaitsForHeaderBufferAndDtb) {
  MicrocodeConfig c;
  Build(c, /*dtbs=*/1, /*header_buffers=*/1);
  for (uint32_t s = 0; s < 3; ++s) PostSlot(0, s, 100);
  WindowCommand(0, abi::MmioCommand::kStartTransmit, 3);
  EXPECT_EQ(mc_->counters().wait(Resource::kHeaderBuffer), 2u);
  platform_->CompleteAllDmas();
  EXPECT_EQ(platform_->sent.size(), 3u);
  EXPECT_EQ(platform_->free_dtbs(), 1u);
  EXPECT_EQ(platform_->free_header_buffers(), 1u);
  EXPECT_GE(mc_->counters().dispatches, 9u);
}

TEST_F(ResourcesTest, WorkManagerHandsWindowsToTasksAsTheyFree) {
  MicrocodeConfig c;
  c.tx_tasks = 1;
  Build(c);
  for (uint32_t s = 0; s < 2; ++s) PostSlot(0, s, 8), PostSlot(1, s, 8);
  WindowCommand(0, abi::MmioCommand::kStartTransmit, 2);
  WindowCommand(1, abi::MmioCommand::kStartTransmit, 2);
  // The first command forked the one transmit task; the second found it busy.
  EXPECT_EQ(mc_->counters().start_transmit_no_task, 1u);
  EXPECT_EQ(mc_->counters().work_manager_posts, 1u);
  platform_->CompleteAllDmas();
  EXPECT_EQ(platform_->sent.size(), 4u);
  EXPECT_EQ(mc_->counters().work_manager_handoffs, 3u);
  EXPECT_EQ(mc_->active_tasks(TaskKind::kTx), 0u);
}

TEST_F(ResourcesTest, AStartTransmitWithEveryTransmitTaskBusyRunsTheWorkManagerTask) {
  MicrocodeConfig c;
  c.tx_tasks = 1;
  Build(c);
  PostSlot(0, 0, 8);
  for (uint32_t s = 0; s < 3; ++s) PostSlot(1, s, 8);
  WindowCommand(0, abi::MmioCommand::kStartTransmit, 1);
  platform_->traces.clear();
  WindowCommand(1, abi::MmioCommand::kStartTransmit, 3);
  // The last task of the pool is the work manager's: it added the count to readyToSend, set
  // the window's ready bit and went idle.
  const TaskId manager = c.tasks - 1;
  std::vector<std::pair<TraceKind, uint32_t>> states;
  for (const TraceEvent& e : platform_->traces) {
    if (e.kind != TraceKind::kMmio) {
      EXPECT_EQ(e.task, manager);
      EXPECT_EQ(e.window, 1u);
      states.emplace_back(e.kind, e.state);
    }
  }
  const std::vector<std::pair<TraceKind, uint32_t>> want = {
      {TraceKind::kWorkState, static_cast<uint32_t>(WorkState::kPost)},
      {TraceKind::kWorkState, static_cast<uint32_t>(WorkState::kDone)}};
  EXPECT_EQ(states, want);
  EXPECT_EQ(platform_->Lmt(1).ready_to_send, 3u);
  EXPECT_EQ(Reg(abi::GlobalReg::kReadyLow), uint64_t{1} << 1);  // window 0's one packet is claimed
  EXPECT_EQ(mc_->counters().work_manager_posts, 1u);
  // What the task posted counts against the FIFO: 3 + 6 > 8 slots is refused.
  WindowCommand(1, abi::MmioCommand::kStartTransmit, 6);
  EXPECT_EQ(mc_->counters().bad_mmio, 1u);
  // The busy task goes on to window 1 as it finishes window 0's packet.
  platform_->CompleteAllDmas();
  EXPECT_EQ(platform_->sent.size(), 4u);
  EXPECT_EQ(mc_->counters().work_manager_handoffs, 3u);
  EXPECT_TRUE(mc_->BusyTasks().empty());
}

TEST_F(ResourcesTest, LiveViewTracksOperationsAndSnapshotDrainsAfterClose) {
  Build(MicrocodeConfig{});
  const TaskId a = Arrive(0, 10);
  const TaskId b = Arrive(1, 10);
  EXPECT_EQ(Reg(abi::GlobalReg::kLiveTaskView), (uint64_t{1} << a) | (uint64_t{1} << b));
  Command(abi::GlobalCommand::kCloseWindow, 0);
  EXPECT_EQ(Reg(abi::GlobalReg::kSnapshotView), (uint64_t{1} << a) | (uint64_t{1} << b));
  // A task starting after the close is not in the snapshot.
  const TaskId c = Arrive(2, 10);
  EXPECT_EQ(Reg(abi::GlobalReg::kSnapshotView) & (uint64_t{1} << c), 0u);
  Payload(b, 10);
  platform_->CompleteAllDmas();
  EXPECT_EQ(Reg(abi::GlobalReg::kSnapshotView), uint64_t{1} << a);
  // The task for the closed window abandons at its next step: no arrival signal is written.
  Payload(a, 10);
  EXPECT_EQ(mc_->counters().drop(DropReason::kClosedInFlight), 1u);
  EXPECT_EQ(Reg(abi::GlobalReg::kSnapshotView), 0u);
  EXPECT_EQ(platform_->Host(RecvFifo(0))[0], 0);
  Payload(c, 10);
  platform_->CompleteAllDmas();
  EXPECT_EQ(Reg(abi::GlobalReg::kLiveTaskView), 0u);
  // New packets for the closed window are refused at admission.
  EXPECT_EQ(Arrive(0, 10), kNoTask);
  EXPECT_EQ(mc_->counters().drop(DropReason::kWindowClosed), 1u);
}

TEST_F(ResourcesTest, CloseStopsTransmitAndWritesNoCompletion) {
  Build(MicrocodeConfig{});
  PostSlot(3, 0, 100);
  WindowCommand(3, abi::MmioCommand::kStartTransmit, 1);
  Command(abi::GlobalCommand::kCloseWindow, 3);
  platform_->CompleteAllDmas();
  EXPECT_TRUE(platform_->sent.empty());
  EXPECT_EQ(mc_->counters().drop(DropReason::kClosedInFlight), 1u);
  EXPECT_EQ(platform_->Host(SendFifo(3))[offsetof(abi::SendSlotHeader, status)],
            static_cast<uint8_t>(abi::SendSlotStatus::kPosted));
  EXPECT_EQ(Reg(abi::GlobalReg::kSnapshotView), 0u);
  WindowCommand(3, abi::MmioCommand::kStartTransmit, 1);
  EXPECT_EQ(mc_->counters().bad_mmio, 1u);
}

TEST_F(ResourcesTest, ResetDropsEveryTaskAndBuffer) {
  Build(MicrocodeConfig{});
  Arrive(0, 10);
  PostSlot(1, 0, 8);
  WindowCommand(1, abi::MmioCommand::kStartTransmit, 1);
  mc_->Reset();
  EXPECT_EQ(mc_->active_tasks(TaskKind::kRx), 0u);
  EXPECT_EQ(mc_->active_tasks(TaskKind::kTx), 0u);
  EXPECT_EQ(mc_->Bmr(0).cb, kNoCb);
  EXPECT_EQ(Reg(abi::GlobalReg::kLiveTaskView), 0u);
  EXPECT_EQ(Reg(abi::GlobalReg::kReadyLow), 0u);
  EXPECT_EQ(mc_->counters().resets, 1u);
}

TEST(TaskFifoTest, KeepsFirstInFirstOutAcrossWrapsAndGrowth) {
  TaskFifo q;
  TaskId next_in = 0;
  TaskId next_out = 0;
  // Fill past two doublings, drain part, wrap the ring, grow again while wrapped.
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 13 + round * 7; ++i) q.push_back(next_in++);
    for (int i = 0; i < 9; ++i) {
      ASSERT_FALSE(q.empty());
      EXPECT_EQ(q.front(), next_out++);
      q.pop_front();
    }
    EXPECT_EQ(q.size(), static_cast<size_t>(next_in - next_out));
  }
  while (!q.empty()) {
    EXPECT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
  q.push_back(7);
  q.clear();
  EXPECT_TRUE(q.empty());
}

TEST(TaskPoolTest, AllocatesTheLowestFreeTaskWithinEachKindsLimit) {
  TaskPool pool(64, 40, 40);
  std::vector<Task*> rx;
  for (int i = 0; i < 40; ++i) rx.push_back(pool.Allocate(TaskKind::kRx));
  EXPECT_EQ(rx[39]->id, 39);
  EXPECT_EQ(pool.Allocate(TaskKind::kRx), nullptr);  // the receive limit
  Task* tx = pool.Allocate(TaskKind::kTx);
  ASSERT_NE(tx, nullptr);
  EXPECT_EQ(tx->id, 40);
  // Freed tasks come back lowest first, whatever order they were freed in.
  pool.Release(*rx[17]);
  pool.Release(*rx[3]);
  EXPECT_EQ(pool.Allocate(TaskKind::kTx)->id, 3);
  EXPECT_EQ(pool.Allocate(TaskKind::kTx)->id, 17);
  for (int i = 0; i < 22; ++i) ASSERT_NE(pool.Allocate(TaskKind::kTx), nullptr);
  EXPECT_EQ(pool.active(TaskKind::kRx), 38u);
  EXPECT_EQ(pool.active(TaskKind::kTx), 25u);
  EXPECT_EQ(pool.Allocate(TaskKind::kTx), nullptr);  // all 63 busy
  EXPECT_EQ(pool.Find(62)->kind, TaskKind::kTx);
  // The last task is the work manager's, allocated from the start and through a reset.
  Task& manager = pool.work_manager();
  EXPECT_EQ(manager.id, 63);
  EXPECT_TRUE(manager.busy);
  EXPECT_EQ(manager.kind, TaskKind::kWork);
  pool.Reset();
  EXPECT_EQ(pool.Allocate(TaskKind::kTx)->id, 0);
  EXPECT_EQ(pool.Allocate(TaskKind::kRx)->id, 1);
  EXPECT_TRUE(pool.work_manager().busy);
  EXPECT_EQ(pool.work_manager().state, static_cast<uint8_t>(WorkState::kDone));
}

TEST(TaskPoolTest, APoolOfTwoHasOneTaskBesidesTheWorkManagers) {
  TaskPool pool(2, 1, 1);
  Task* rx = pool.Allocate(TaskKind::kRx);
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->id, 0);
  EXPECT_FALSE(pool.CanAllocate(TaskKind::kTx));
  pool.Release(*rx);
  EXPECT_EQ(pool.Allocate(TaskKind::kTx)->id, 0);
}

}  // namespace
}  // namespace nicsim::fw
