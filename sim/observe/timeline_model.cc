// SPDX-License-Identifier: Apache-2.0
// Timeline construction: task state slices, DMA transfers packed into lanes, instants for the
// rest, restricted to a TraceSelection.
#include "sim/observe/timeline_model.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "firmware/counters.h"
#include "firmware/states.h"
#include "sim/observe/trace_writer.h"

namespace nicsim::sim {
namespace {

// Track ids within an adapter's process. The id is also the track's sort index, so the
// command path comes first, then the tasks, the DMA lanes and the link.
constexpr uint32_t kMmioTid = 1;
constexpr uint32_t kInterruptTid = 2;
constexpr uint32_t kLmtTid = 3;
constexpr uint32_t kTaskTid = 100;     // + task id (task ids are 16 bits)
constexpr uint32_t kDmaTid = 100'000;  // + lane
constexpr uint32_t kLinkInTid = 1'000'000;
constexpr uint32_t kLinkOutTid = 1'000'001;

template <typename Table>
std::string Name(const Table& table, uint64_t index) {
  return index < table.size() ? std::string(table[index]) : "unknown_" + std::to_string(index);
}

/** The task-facing fields of an event as args; absent ids are left out. */
nlohmann::json TaskArgs(const fw::TraceEvent& e) {
  nlohmann::json args = {{"window", e.window}};
  if (e.cb != fw::kNoCb) args["cb"] = e.cb;
  if (e.dtb != fw::kNoDtb) args["dtb"] = e.dtb;
  return args;
}

/** The command name the text trace prints for a kMmio event (one table for both formats). */
std::string MmioName(const fw::TraceEvent& e) {
  const std::string line = FormatTraceEvent(0, 0, e);
  const size_t at = line.find(" state=");
  if (at == std::string::npos) return "mmio";
  const size_t begin = at + 7;
  return line.substr(begin, line.find(' ', begin) - begin);
}

}  // namespace

std::string TimelineModel::TrackName(uint32_t tid) {
  switch (tid) {
    case kMmioTid:
      return "mmio";
    case kInterruptTid:
      return "interrupts";
    case kLmtTid:
      return "channel buffers";
    case kLinkInTid:
      return "link in";
    case kLinkOutTid:
      return "link out";
    default:
      break;
  }
  if (tid >= kDmaTid) return tid == kDmaTid ? "dma" : "dma " + std::to_string(tid - kDmaTid);
  return "task " + std::to_string(tid - kTaskTid);
}

void TimelineModel::Emit(TimelineSlice slice) {
  if (!selection_.whole_run()) {
    // Kept when it overlaps the window (an instant or empty slice: when inside it), clipped.
    const uint64_t end_ps = slice.ts_ps + slice.dur_ps;
    if (slice.ts_ps >= selection_.end_ps()) return;
    if (end_ps < selection_.start_ps() || (end_ps == selection_.start_ps() && slice.dur_ps > 0)) {
      return;
    }
    slice.ts_ps = std::max(slice.ts_ps, selection_.start_ps());
    slice.dur_ps = std::min(end_ps, selection_.end_ps()) - slice.ts_ps;
  }
  processes_.insert(slice.pid);
  tracks_.insert({slice.pid, slice.tid});
  slices_.push_back(std::move(slice));
}

void TimelineModel::Instant(uint64_t ts_ps, uint16_t pid, uint32_t tid, std::string name,
                            std::string cat, std::string args) {
  TimelineSlice s;
  s.ph = 'i';
  s.ts_ps = ts_ps;
  s.pid = pid;
  s.tid = tid;
  s.name = std::move(name);
  s.cat = std::move(cat);
  s.args = std::move(args);
  Emit(std::move(s));
}

void TimelineModel::CloseTask(Adapter& a, fw::TaskId task, uint64_t end_ps) {
  auto it = a.tasks.find(task);
  if (it == a.tasks.end() || !it->second.open) return;
  TimelineSlice s = std::move(it->second.slice);
  it->second.open = false;
  s.dur_ps = end_ps > s.ts_ps ? end_ps - s.ts_ps : 0;
  Emit(std::move(s));
}

void TimelineModel::OpenTask(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e,
                             std::string name, std::string cat) {
  OpenSlice& open = a.tasks[e.task];
  open.open = true;
  open.slice = TimelineSlice{};
  open.slice.ts_ps = ts_ps;
  open.slice.pid = pid;
  open.slice.tid = kTaskTid + e.task;
  open.slice.name = std::move(name);
  open.slice.cat = std::move(cat);
  open.slice.args = TaskArgs(e).dump();
}

void TimelineModel::StartDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e) {
  // Transfers overlap: each takes the lowest lane free at its start, so a lane's slices
  // never overlap and the first lane ("dma") holds them all when the engine is not busy.
  const auto free_lane = std::find(a.lane_busy.begin(), a.lane_busy.end(), false);
  const uint32_t lane = static_cast<uint32_t>(free_lane - a.lane_busy.begin());
  if (free_lane == a.lane_busy.end()) a.lane_busy.push_back(true);
  a.lane_busy[lane] = true;
  OpenDma dma;
  dma.lane = lane;
  dma.slice.ts_ps = ts_ps;
  dma.slice.pid = pid;
  dma.slice.tid = kDmaTid + lane;
  dma.slice.name = e.state == 0 ? "dma:to_host" : "dma:from_host";
  dma.slice.cat = "dma";
  nlohmann::json args = {{"bytes", e.value}};
  if (e.task != fw::kNoTask) args["task"] = e.task;
  dma.slice.args = args.dump();
  a.dmas[{e.task, e.state}].push_back(std::move(dma));
}

void TimelineModel::FinishDma(Adapter& a, uint64_t ts_ps, uint16_t pid, const fw::TraceEvent& e) {
  // A done carries the tag and direction but not the transfer: the oldest such start is it.
  auto it = a.dmas.find({e.task, e.state});
  if (it == a.dmas.end() || it->second.empty()) {
    Instant(ts_ps, pid, kDmaTid, "dma:done_without_start", "dma",
            nlohmann::json{{"task", e.task}, {"status", e.value}}.dump());
    return;
  }
  OpenDma dma = std::move(it->second.front());
  it->second.pop_front();
  a.lane_busy[dma.lane] = false;
  nlohmann::json args = nlohmann::json::parse(dma.slice.args);
  args["status"] = e.value == static_cast<uint64_t>(fw::DmaStatus::kOk) ? "ok" : "address_error";
  dma.slice.args = args.dump();
  dma.slice.dur_ps = ts_ps > dma.slice.ts_ps ? ts_ps - dma.slice.ts_ps : 0;
  Emit(std::move(dma.slice));
}

void TimelineModel::CloseAll(Adapter& a, uint64_t end_ps, const char* dma_status) {
  for (auto& [task, open] : a.tasks) CloseTask(a, task, end_ps);
  // Close transfers in start order so each lane's slices stay in time order.
  std::vector<OpenDma> dmas;
  for (auto& [key, queue] : a.dmas) {
    for (OpenDma& d : queue) dmas.push_back(std::move(d));
    queue.clear();
  }
  std::stable_sort(dmas.begin(), dmas.end(), [](const OpenDma& x, const OpenDma& y) {
    return x.slice.ts_ps < y.slice.ts_ps;
  });
  for (OpenDma& d : dmas) {
    nlohmann::json args = nlohmann::json::parse(d.slice.args);
    args["status"] = dma_status;
    d.slice.args = args.dump();
    d.slice.dur_ps = end_ps > d.slice.ts_ps ? end_ps - d.slice.ts_ps : 0;
    Emit(std::move(d.slice));
  }
  std::fill(a.lane_busy.begin(), a.lane_busy.end(), false);
}

void TimelineModel::Record(uint64_t t, uint16_t pid, const fw::TraceEvent& e) {
  ++events_;
  // The last time seen counts every adapter, so a selection's slices end where they would
  // without it.
  last_ps_ = std::max(last_ps_, t);
  if (!selection_.KeepsAdapter(pid)) return;
  if (selection_.KeepsTime(t)) processes_.insert(pid);
  Adapter& a = adapters_[pid];
  switch (e.kind) {
    case fw::TraceKind::kRxState:
      CloseTask(a, e.task, t);
      // A task entering "done" goes back to the pool: nothing more to show until it is reused.
      if (e.state != static_cast<uint32_t>(fw::RxState::kDone)) {
        OpenTask(a, t, pid, e, "rx:" + Name(fw::kRxStateNames, e.state), "rx");
      }
      break;
    case fw::TraceKind::kTxState:
      CloseTask(a, e.task, t);
      if (e.state != static_cast<uint32_t>(fw::TxState::kDone)) {
        OpenTask(a, t, pid, e, "tx:" + Name(fw::kTxStateNames, e.state), "tx");
      }
      break;
    case fw::TraceKind::kWorkState:
      // Idle between notifications: no slice.
      CloseTask(a, e.task, t);
      if (e.state != static_cast<uint32_t>(fw::WorkState::kDone)) {
        OpenTask(a, t, pid, e, "wm:" + Name(fw::kWorkStateNames, e.state), "wm");
      }
      break;
    case fw::TraceKind::kWait:
      CloseTask(a, e.task, t);
      OpenTask(a, t, pid, e, "wait:" + Name(fw::kResourceNames, e.value), "wait");
      break;
    case fw::TraceKind::kDrop: {
      nlohmann::json args = TaskArgs(e);
      if (e.task == fw::kNoTask) {
        Instant(t, pid, kLinkInTid, "drop:" + Name(fw::kDropReasonNames, e.value), "drop",
                args.dump());
      } else {
        CloseTask(a, e.task, t);
        Instant(t, pid, kTaskTid + e.task, "drop:" + Name(fw::kDropReasonNames, e.value), "drop",
                args.dump());
      }
      break;
    }
    case fw::TraceKind::kDmaStart:
      StartDma(a, t, pid, e);
      break;
    case fw::TraceKind::kDmaDone:
      FinishDma(a, t, pid, e);
      break;
    case fw::TraceKind::kReset:
      // Everything in flight is dropped: the adapter's tasks stop and its DMAs never complete.
      CloseAll(a, t, "aborted_by_reset");
      Instant(t, pid, kMmioTid, "reset", "mmio", "{}");
      break;
    case fw::TraceKind::kLinkOut:
    case fw::TraceKind::kFrameIn:
    case fw::TraceKind::kInterrupt:
    case fw::TraceKind::kMmio:
    case fw::TraceKind::kCloseWindow:
    case fw::TraceKind::kLmtFetch:
    case fw::TraceKind::kLmtFlush:
    case fw::TraceKind::kRcxt:
    case fw::TraceKind::kAddressException:
    case fw::TraceKind::kSnapshot:
    case fw::TraceKind::kCondition:
      RecordInstant(t, pid, e);
      break;
  }
}

void TimelineModel::RecordInstant(uint64_t t, uint16_t pid, const fw::TraceEvent& e) {
  switch (e.kind) {
    case fw::TraceKind::kLinkOut:
      Instant(t, pid, kLinkOutTid, "to_a" + std::to_string(e.state), "link",
              nlohmann::json{{"dest_adapter", e.state}, {"bytes", e.value}}.dump());
      break;
    case fw::TraceKind::kFrameIn:
      Instant(t, pid, kLinkInTid, "frame_in", "link", nlohmann::json{{"bytes", e.value}}.dump());
      break;
    case fw::TraceKind::kInterrupt:
      Instant(t, pid, kInterruptTid, "interrupt", "interrupt",
              nlohmann::json{{"handler", e.value}, {"first_window", e.window}}.dump());
      break;
    case fw::TraceKind::kMmio: {
      nlohmann::json args = {{"value", e.value}};
      if (e.state < 0x100) args["window"] = e.window;
      Instant(t, pid, kMmioTid, MmioName(e), "mmio", args.dump());
      break;
    }
    case fw::TraceKind::kCloseWindow:
      Instant(t, pid, kMmioTid, "close_window", "mmio",
              nlohmann::json{{"window", e.window}, {"snapshot", e.value}}.dump());
      break;
    case fw::TraceKind::kLmtFetch:
    case fw::TraceKind::kLmtFlush:
      Instant(t, pid, kLmtTid, e.kind == fw::TraceKind::kLmtFetch ? "lmt_fetch" : "lmt_flush",
              "lmt", nlohmann::json{{"window", e.window}, {"cb", e.cb}}.dump());
      break;
    case fw::TraceKind::kRcxt:
      Instant(t, pid, kLmtTid, "rcxt", "rdma",
              nlohmann::json{{"rcxt", e.value & 0xFFFFFFFFu},
                             {"tid", e.value >> 32},
                             {"state", e.state},
                             {"window", e.window}}
                  .dump());
      break;
    case fw::TraceKind::kAddressException:
      Instant(t, pid, kInterruptTid, "address_exception", "rdma",
              nlohmann::json{{"window", e.window}, {"pvo", e.value}}.dump());
      break;
    case fw::TraceKind::kSnapshot:
      Instant(t, pid, kMmioTid, "snapshot", "mmio",
              nlohmann::json{{"task", e.task}, {"view", e.value}}.dump());
      break;
    case fw::TraceKind::kCondition:
      Instant(t, pid, kLmtTid, "condition", "rdma",
              nlohmann::json{{"queue", e.state}, {"count", e.value}}.dump());
      break;
    default:  // the kinds Record handles itself
      break;
  }
}

void TimelineModel::Close() {
  for (auto& [pid, a] : adapters_) CloseAll(a, last_ps_, "open_at_end");
  // Slices are emitted when they end; ordering by start keeps every track non-decreasing
  // (a stable sort keeps same-time slices in the order they happened).
  std::stable_sort(
      slices_.begin(), slices_.end(),
      [](const TimelineSlice& x, const TimelineSlice& y) { return x.ts_ps < y.ts_ps; });
}

}  // namespace nicsim::sim
