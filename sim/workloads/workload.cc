// SPDX-License-Identifier: Apache-2.0
// Shared workload helpers: byte patterns, the run-until loop, choosing a sender/receiver pair.
#include "sim/workloads/workload.h"

#include <cstring>

#include "base/rng.h"
#include "base/sanitizers.h"
#include "sim/distrib/split_run.h"

namespace nicsim::sim {

namespace {
/**
 * Per-word pattern: word i is (seed + i) times an odd constant, so every word depends on the
 * key, the length and its position. Modulo 2^64 that is seed * K + i * K, so the loops step
 * each block of words from the one before by adding a multiple of K: vector adds (GCC and
 * Clang vector extensions; at -O2 GCC does not vectorise the plain loop itself). The two
 * loops are also built for AVX2, picked at load time where the CPU has it.
 */
uint64_t PatternSeed(uint64_t key, uint32_t len) {
  uint64_t state = key * 0x2545F4914F6CDD1Dull + len;
  return SplitMix64(state);
}
constexpr uint64_t kPatternMultiplier = 0x9E3779B97F4A7C15ull;
uint64_t PatternWord(uint64_t seed, uint32_t index) { return (seed + index) * kPatternMultiplier; }
/** Pattern words handled per block step (one AVX2 register, or two SSE2 ones). */
constexpr uint32_t kBlockWords = 4;
using WordBlock = uint64_t __attribute__((vector_size(8 * kBlockWords)));
/** Words 0 .. kBlockWords - 1 of the pattern of `seed` (by pointer: no vector-return ABI). */
void FirstBlock(uint64_t seed, WordBlock* block) {
  for (uint32_t i = 0; i < kBlockWords; ++i) (*block)[i] = PatternWord(seed, i);
}
constexpr uint64_t kStep = kBlockWords * kPatternMultiplier;
constexpr WordBlock kBlockStep = {kStep, kStep, kStep, kStep};
static_assert(kBlockWords == 4, "kBlockStep lists one step per word");
}  // namespace

// ThreadSanitizer instruments the clones' resolver, which the loader runs before the
// sanitizer's runtime is up (a crash at start): one plain version there.
#if NICSIM_THREAD_SANITIZER
#define NICSIM_PATTERN_CLONES
#else
#define NICSIM_PATTERN_CLONES __attribute__((target_clones("avx2", "default")))
#endif

NICSIM_PATTERN_CLONES void FillPattern(uint8_t* dst, uint32_t len, uint64_t key) {
  const uint64_t seed = PatternSeed(key, len);
  const uint32_t words = len / 8;
  const uint32_t block_words = words - words % kBlockWords;
  WordBlock block;
  FirstBlock(seed, &block);
  for (uint32_t i = 0; i < block_words; i += kBlockWords, block += kBlockStep) {
    std::memcpy(dst + 8 * i, &block, sizeof(block));
  }
  for (uint32_t i = block_words; i < words; ++i) {
    const uint64_t word = PatternWord(seed, i);
    std::memcpy(dst + 8 * i, &word, 8);
  }
  if (len % 8 != 0) {
    const uint64_t tail = PatternWord(seed, words);
    std::memcpy(dst + 8 * words, &tail, len % 8);
  }
}

NICSIM_PATTERN_CLONES bool CheckPattern(const uint8_t* data, uint32_t len, uint64_t key) {
  const uint64_t seed = PatternSeed(key, len);
  const uint32_t words = len / 8;
  const uint32_t block_words = words - words % kBlockWords;
  // Branch-free over the words: differences accumulate, tested once at the end.
  WordBlock block;
  FirstBlock(seed, &block);
  WordBlock diff_block = {};
  for (uint32_t i = 0; i < block_words; i += kBlockWords, block += kBlockStep) {
    WordBlock got;
    std::memcpy(&got, data + 8 * i, sizeof(got));
    diff_block |= got ^ block;
  }
  uint64_t diff = 0;
  for (uint32_t i = 0; i < kBlockWords; ++i) diff |= diff_block[i];
  for (uint32_t i = block_words; i < words; ++i) {
    uint64_t got;
    std::memcpy(&got, data + 8 * i, 8);
    diff |= got ^ PatternWord(seed, i);
  }
  if (len % 8 != 0) {
    const uint64_t tail = PatternWord(seed, words);
    if (std::memcmp(data + 8 * words, &tail, len % 8) != 0) return false;
  }
  return diff == 0;
}

Status StalledError(const Cluster& cluster, const std::string& what) {
  // Stopped before an event past run.time_limit: the stall is at that event's time.
  return StalledError(
      cluster, what,
      NextPastTimeLimit(cluster) ? cluster.events().next_time_ps() : cluster.events().now_ps());
}

Status StalledError(const Cluster& cluster, const std::string& what, uint64_t now_ps) {
  const std::string at = std::to_string(now_ps / 1000) + "ns";
  if (!cluster.touched_limit_error().ok()) {
    return Status::Error(what + ": stopped at t=" + at + ": " +
                         cluster.touched_limit_error().message());
  }
  if (now_ps > cluster.config().time_limit_ps) {
    return Status::Error(what + ": not done when simulated time passed run.time_limit (" +
                         std::to_string(cluster.config().time_limit_ps / 1000) + "ns) at t=" + at);
  }
  return Status::Error(what + ": stalled with no events left at t=" + at);
}

Result<uint64_t> RunWindowsToEnd(Cluster& cluster) {
  distrib::SplitRun& windows = cluster.windows();
  const distrib::WindowHooks hooks = distrib::UpToTimeLimit(cluster.config().time_limit_ps);
  if (Status run = windows.RunWindows(cluster.events(), cluster.fabric(), hooks); !run.ok()) {
    return run;
  }
  // Events left past the limit: the run was stopped there (a stall's time is the first).
  const uint64_t left_ps = windows.world().Min(cluster.events().next_time_ps());
  return left_ps != UINT64_MAX ? left_ps : windows.world().Max(cluster.events().now_ps());
}

void RunToQuiet(Cluster& cluster) {
  if (!cluster.touched_limit_error().ok()) return;
  uint64_t n = 0;
  cluster.events().RunWhile([&] {
    if ((++n & 0xFFFF) == 0 && !PeriodicCheck(cluster)) return false;
    return !PastTimeLimit(cluster);
  });
}

Result<std::pair<WindowProcess*, WindowProcess*>> PickPair(Cluster& cluster) {
  const ClusterConfig& c = cluster.config();
  WindowProcess* a = &cluster.endpoint(0, 0);
  if (c.nodes >= 2) return std::make_pair(a, &cluster.endpoint(c.adapters_per_node, 0));
  if (c.adapters_per_node >= 2) return std::make_pair(a, &cluster.endpoint(1, 0));
  if (c.windows_per_adapter >= 2) return std::make_pair(a, &cluster.endpoint(0, 1));
  return Status::Error(
      "a two-party workload needs two windows: raise nodes, "
      "adapters_per_node or windows_per_adapter");
}

}  // namespace nicsim::sim
