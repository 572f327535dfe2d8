// SPDX-License-Identifier: Apache-2.0
// Window images (ulp/mpi/capi/window_image.h): what changed since the two ends of a rank's
// channel last agreed travels, exactly those runs of chunks, and applies at the other end.
#include "ulp/mpi/capi/window_image.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace nicsim::mpi::wire {
namespace {

using Images = std::vector<std::pair<int32_t, WindowImage*>>;

TEST(WindowImage, NothingChangedSendsNothing) {
  std::vector<uint8_t> memory(300, 5);
  WindowImage image(memory.data(), memory.size());
  EXPECT_TRUE(ChangesSection(Images{{7, &image}}).empty());
}

TEST(WindowImage, ChangedChunksTravelAsRunsAndApplyAtTheOtherEnd) {
  std::vector<uint8_t> program(300, 0), simulator(300, 0);
  WindowImage here(program.data(), program.size());
  WindowImage there(simulator.data(), simulator.size());
  program[3] = 1;    // chunk 0
  program[70] = 2;   // chunk 1: one run with chunk 0
  program[299] = 3;  // chunk 4 (the last, 44 bytes): a second run
  const std::vector<uint8_t> section = ChangesSection(Images{{7, &here}});
  // u32 windows, i32 image, u32 runs, then (u64 offset, u64 length, bytes) per run.
  ASSERT_EQ(section.size(), 4u + 4 + 4 + (8 + 8 + 128) + (8 + 8 + 44));
  Reader r(section.data(), section.size());
  EXPECT_EQ(r.Get<uint32_t>(), 1u);
  EXPECT_EQ(r.Get<int32_t>(), 7);
  EXPECT_EQ(r.Get<uint32_t>(), 2u);
  EXPECT_EQ(r.Get<uint64_t>(), 0u);
  EXPECT_EQ(r.Blob().second, 128u);
  EXPECT_EQ(r.Get<uint64_t>(), 256u);
  EXPECT_EQ(r.Blob().second, 44u);
  ASSERT_TRUE(ApplyChangesSection(section.data(), section.size(),
                                  [&](int32_t number) { return number == 7 ? &there : nullptr; }));
  EXPECT_EQ(simulator, program);
  // Both ends agree now: nothing travels either way.
  EXPECT_TRUE(ChangesSection(Images{{7, &here}}).empty());
  EXPECT_TRUE(ChangesSection(Images{{7, &there}}).empty());
}

TEST(WindowImage, ASectionNamingAnotherImageOrRunningPastTheEndIsRefused) {
  std::vector<uint8_t> program(64, 0), simulator(64, 0);
  WindowImage here(program.data(), program.size());
  WindowImage there(simulator.data(), simulator.size());
  program[0] = 9;
  const std::vector<uint8_t> section = ChangesSection(Images{{7, &here}});
  EXPECT_FALSE(ApplyChangesSection(section.data(), section.size(),
                                   [](int32_t) -> WindowImage* { return nullptr; }));
  WindowImage small(simulator.data(), 16);
  EXPECT_FALSE(
      ApplyChangesSection(section.data(), section.size(), [&](int32_t) { return &small; }));
  // Cut short.
  EXPECT_FALSE(
      ApplyChangesSection(section.data(), section.size() - 1, [&](int32_t) { return &there; }));
}

}  // namespace
}  // namespace nicsim::mpi::wire
