// SPDX-License-Identifier: Apache-2.0
// Postbox messaging between two real processes: a forked child sends through POSIX shared
// memory to its parent, which checks every byte; the segments are gone afterwards.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/child_process.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/sender.h"
#include "ulp/segments/shm_segments.h"

namespace nicsim::ulp::postbox {
namespace {

std::vector<uint8_t> Bytes(size_t size, uint32_t salt) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) v[i] = static_cast<uint8_t>((i * 29 + salt * 13) & 0xff);
  return v;
}

Params ShmParams() {
  Params p;
  p.piece_bytes = 256;
  p.pool_blocks = 8;
  p.slots_per_receiver = 4;
  p.inline_bytes = 32;
  p.receiver_quota_blocks = 4;
  return p;
}

std::vector<size_t> Sizes(const Params& p) {
  std::vector<size_t> sizes = {0, 1, p.inline_bytes, p.inline_bytes + 1};
  for (size_t k = 1; k <= 10; k += 3) {
    sizes.push_back(k * p.piece_bytes - 1);
    sizes.push_back(k * p.piece_bytes);
    sizes.push_back(k * p.piece_bytes + 1);
  }
  return sizes;
}

/** The child: sends every size to the parent, waits until all is acknowledged. */
int ChildSends(const std::string& prefix, const Topology& topology) {
  const Params p = ShmParams();
  segments::ShmSegments platform(prefix);
  auto sender = Sender::Create(&platform, topology, {0, 0}, p);
  if (!sender.ok()) return 2;
  uint32_t salt = 0;
  for (size_t size : Sizes(p)) {
    const auto msg = Bytes(size, ++salt);
    if (!(*sender)->Send({0, 1}, msg.data(), msg.size()).ok()) return 3;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(*sender)->Idle()) {
    if (std::chrono::steady_clock::now() > deadline) return 4;
    if (!(*sender)->Progress().ok()) return 5;
    usleep(50);
  }
  sender->reset();  // detach, then the platform unlinks what it made
  return 0;
}

TEST(PostboxShmTest, AForkedChildSendsToItsParentThroughSharedMemory) {
  const std::string prefix = segments::ShmSegments::PrefixForThisProcess("pbx");
  Topology topology;
  topology.processes_per_node = {2};  // one SMP node: child is rank 0, parent rank 1
  Result<pid_t> forked = ForkCall("postbox sender", [&] { return ChildSends(prefix, topology); });
  ASSERT_TRUE(forked.ok()) << forked.status().message();
  const pid_t child = *forked;

  const Params p = ShmParams();
  segments::ShmSegments platform(prefix);
  auto receiver = Receiver::Create(&platform, topology, {0, 1}, p);
  ASSERT_TRUE(receiver.ok());
  const std::vector<size_t> sizes = Sizes(p);
  size_t got = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (got < sizes.size() && std::chrono::steady_clock::now() < deadline) {
    auto polled = (*receiver)->Poll();
    ASSERT_TRUE(polled.ok()) << polled.status().message();
    while (auto m = (*receiver)->Take()) {
      ASSERT_LT(got, sizes.size());
      EXPECT_EQ(m->from, (ProcessId{0, 0}));
      EXPECT_EQ(m->bytes, Bytes(sizes[got], static_cast<uint32_t>(got + 1))) << "message " << got;
      ++got;
    }
    usleep(50);
  }
  EXPECT_EQ(got, sizes.size());
  if (got < sizes.size()) kill(child, SIGKILL);  // the child this test started, by its PID
  EXPECT_EQ(DescribeWaitStatus(WaitFor(child)), "exited with status 0");
  receiver->reset();
  // The child unlinked its segments when it was done.
  const std::string data = prefix + DataSegmentName({0, 0}, 0);
  EXPECT_LT(shm_open(data.c_str(), O_RDONLY, 0), 0);
  const std::string ack = prefix + AckSegmentName(0, 0);
  EXPECT_LT(shm_open(ack.c_str(), O_RDONLY, 0), 0);
}

TEST(PostboxShmTest, AttachingAMissingSegmentIsAnError) {
  segments::ShmSegments platform(segments::ShmSegments::PrefixForThisProcess("pbx"));
  auto m = platform.Attach("no-such-segment");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("no-such-segment"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::ulp::postbox
