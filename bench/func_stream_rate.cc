// SPDX-License-Identifier: Apache-2.0
// Benchmark: simulated packets per wall-second of a 2-node packet-mode stream on hw/func,
// as a ratio against a reference pipeline measured in the same run on the same machine; also
// what the event queue alone costs per event on the stream's own schedule.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "base/crc32.h"
#include "bench/bench_report.h"
#include "bench/timed_stream.h"
#include "kernel/event_queue.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kPackets = 200000;
constexpr uint32_t kSize = 1024;
constexpr int kRepeats = 3;

/**
 * The reference: the byte work any packet simulator must do for one packet, and nothing
 * else: copy into the send slot, into a DTB, onto a heap-allocated wire frame with a CRC,
 * into the receive DTB and into the receive FIFO.
 */
double ReferencePacketsPerSecond() {
  std::vector<uint8_t> user(kSize, 7), slot(kSize), dtb(kSize), rx_dtb(kSize), fifo(kSize);
  uint32_t sink = 0;
  const auto start = Clock::now();
  for (uint64_t i = 0; i < kPackets; ++i) {
    user[i % kSize] = static_cast<uint8_t>(i);
    std::memcpy(slot.data(), user.data(), kSize);
    std::memcpy(dtb.data(), slot.data(), kSize);
    std::vector<uint8_t> frame(dtb.begin(), dtb.end());
    sink ^= nicsim::Crc32(0, frame.data(), frame.size());
    std::memcpy(rx_dtb.data(), frame.data(), kSize);
    std::memcpy(fifo.data(), rx_dtb.data(), kSize);
    sink ^= fifo[i % kSize];
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (sink == 0xFFFFFFFF) std::puts("");  // keep the work observable
  return kPackets / s;
}

/**
 * The event queue alone: replays a stream's own schedule (when each event was scheduled and
 * when it was due) through a fresh queue whose actions do nothing but carry a 24-byte
 * capture, the size of the model's small closures. Returns wall nanoseconds per event.
 */
double QueueNsPerEvent(const std::vector<nicsim::kernel::EventQueue::Scheduled>& schedule) {
  nicsim::kernel::EventQueue queue;
  uint64_t sink = 0;
  const auto start = Clock::now();
  for (const auto& s : schedule) {
    // Run events up to the one whose action made this call, then make it.
    while (queue.now_ps() < s.made_ps && queue.RunOne()) {
    }
    queue.At(s.due_ps, [&sink, made = s.made_ps, due = s.due_ps] { sink += due - made; });
  }
  queue.RunWhile([] { return true; });
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (sink == 1) std::puts("");  // keep the actions' work observable
  return s * 1e9 / static_cast<double>(queue.events_run());
}

struct SimFigures {
  double packets_per_s;
  double events_per_s;
  uint64_t events;
};

/** The functional backend's cluster of two nodes the stream runs on. */
nicsim::sim::ClusterConfig FuncCluster() {
  nicsim::sim::ClusterConfig config;
  config.backend = nicsim::sim::BackendKind::kFunc;
  return config;
}

SimFigures SimPacketsPerSecond() {
  const nicsim::bench::TimedStream t =
      nicsim::bench::RunTimedStream(FuncCluster(), kPackets, kSize);
  return {kPackets / t.wall_s, t.events / t.wall_s, t.events};
}

template <typename T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  std::vector<double> ref, sim, ev, queue_ns;
  uint64_t events = 0;
  for (int i = 0; i < kRepeats; ++i) {
    ref.push_back(ReferencePacketsPerSecond());
    const SimFigures f = SimPacketsPerSecond();
    sim.push_back(f.packets_per_s);
    ev.push_back(f.events_per_s);
    events = f.events;
  }
  // Recorded after the timed runs, so its 16 bytes per event do not disturb them.
  std::vector<nicsim::kernel::EventQueue::Scheduled> schedule;
  nicsim::bench::RunTimedStream(FuncCluster(), kPackets, kSize, &schedule);
  for (int i = 0; i < kRepeats; ++i) queue_ns.push_back(QueueNsPerEvent(schedule));
  nicsim::bench::Report report("func_stream_rate",
                               "2-node packet-mode stream of 1 KiB packets on hw/func");
  report.Figure("sim_packets_per_wall_s", Median(sim));
  report.Figure("sim_events_per_wall_s", Median(ev));
  report.Figure("events_per_packet", static_cast<double>(events) / kPackets);
  report.Figure("reference_packets_per_s", Median(ref));
  // What the queue costs of a whole event (its handler's work included): the share of the
  // run a queue that cost nothing would save.
  const double event_ns = 1e9 / Median(ev);
  report.Figure("queue_alone_ns_per_event", Median(queue_ns));
  report.Figure("sim_ns_per_event", event_ns);
  report.Figure("queue_share_of_event_percent", 100 * Median(queue_ns) / event_ns);
  report.Ratio("sim_vs_reference", Median(sim) / Median(ref), /*min=*/0.12);
  return report.Finish();
}
