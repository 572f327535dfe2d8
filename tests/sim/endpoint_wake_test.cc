// SPDX-License-Identifier: Apache-2.0
// A polling endpoint wakes for a receive frame only when the frame's first line (its valid
// marker) lands, and reads it exactly host.poll_latency later, however close behind the body
// the first line comes.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "abi/limits.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/window_process.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

TEST(EndpointWakeTest, OnlyWritesCoveringAFrameStartWake) {
  const uint64_t base = 0x10000;
  const uint64_t frame = abi::kRecvFrameBytes;
  EXPECT_TRUE(CoversFrameStart(base, base, 128));                 // frame 0's first line
  EXPECT_TRUE(CoversFrameStart(base, base + 3 * frame, 1));       // one byte: the valid marker
  EXPECT_FALSE(CoversFrameStart(base, base + 128, frame - 128));  // a whole body, no first line
  EXPECT_FALSE(CoversFrameStart(base, base + 1, 127));            // the rest of a first line
  EXPECT_TRUE(CoversFrameStart(base, base + frame - 8, 16));      // runs into frame 1's start
  EXPECT_FALSE(CoversFrameStart(base, base + frame - 8, 8));      // ends just before it
}

/** Adapter 1's receive side: when each DMA to host completed, and when frames were read. */
class ReceiverTimes final : public hw::func::TraceSink, public HostTraceSink {
 public:
  void Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& e) override {
    if (adapter == 1 && e.kind == fw::TraceKind::kDmaDone && e.state == 0) {
      dma_to_host_ps.push_back(time_ps);
    }
  }
  void RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& e) override {
    if (adapter == 1 && e.kind == HostTraceKind::kFrameConsumed) consumed_ps.push_back(time_ps);
  }
  std::vector<uint64_t> dma_to_host_ps;
  std::vector<uint64_t> consumed_ps;
};

TEST(EndpointWakeTest, AFrameIsReadOnePollLatencyAfterItsFirstLineLands) {
  // From a frame within one line (no body DMA) to one with a long body before its first line.
  for (uint32_t size : {64u, 100u, 200u, 500u, 1000u, 1500u, 2000u}) {
    SCOPED_TRACE("size " + std::to_string(size));
    ReceiverTimes times;
    ClusterConfig config;
    config.backend = BackendKind::kFunc;
    config.trace = &times;
    config.host_trace = &times;
    Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    StreamConfig stream;
    stream.packets = 1;
    stream.size = size;
    ASSERT_TRUE(RunStream(**cluster, stream).ok());
    ASSERT_EQ(times.consumed_ps.size(), 1u);
    ASSERT_FALSE(times.dma_to_host_ps.empty());
    // The frame's first line is its last write to the host.
    EXPECT_EQ(times.consumed_ps[0], times.dma_to_host_ps.back() + config.poll_latency_ps);
  }
}

TEST(EndpointWakeTest, UnderAStreamEveryReadFollowsAFirstLineByOnePollLatency) {
  ReceiverTimes times;
  ClusterConfig config;
  config.backend = BackendKind::kFunc;
  config.host_trace = &times;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(config);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  Cluster& c = **cluster;
  // Every device write into the receiver's FIFO, as the host sees it land.
  const driver::WindowInfo& info = c.endpoint(1, 0).window().info();
  struct Write {
    uint64_t time_ps;
    bool first_line;
  };
  std::vector<Write> writes;
  const int watch = c.host(1).Watch(
      info.recv_fifo.real_addr, info.recv_fifo.bytes, [&](uint64_t addr, uint64_t len) {
        writes.push_back(
            {c.events().now_ps(), CoversFrameStart(info.recv_fifo.real_addr, addr, len)});
      });
  StreamConfig stream;
  stream.packets = 300;
  stream.size = 1000;
  ASSERT_TRUE(RunStream(c, stream).ok());
  c.host(1).Unwatch(watch);
  ASSERT_EQ(times.consumed_ps.size(), 300u);
  // Back to back, a payload write can land just before another frame's first line; the
  // poll it would have caused must not exist: each read is a first line's poll.
  size_t body_writes = 0;
  for (const Write& w : writes) body_writes += w.first_line ? 0 : 1;
  EXPECT_GT(body_writes, 0u);
  for (uint64_t consumed : times.consumed_ps) {
    bool after_first_line = false;
    for (const Write& w : writes) {
      after_first_line |= w.first_line && w.time_ps + config.poll_latency_ps == consumed;
    }
    EXPECT_TRUE(after_first_line) << "frame read at " << consumed << " ps";
  }
}

}  // namespace
}  // namespace nicsim::sim
