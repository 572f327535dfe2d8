// SPDX-License-Identifier: Apache-2.0
// Lazy deregistration on a real address space and TCE tables: hits on reuse, one run per
// mapping inside a fragment, fragments split at 16 MiB boundaries, aging of unused
// fragments by a background tick once per simulated second, and a fresh registration when
// the memory behind a fragment changed.
#include <gtest/gtest.h>

#include <memory>

#include "abi/rdma.h"
#include "sim/cluster/cluster.h"
#include "ulp/transport/registration_cache.h"

namespace nicsim::sim {
namespace {

class RegistrationCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterConfig c;
    c.backend = BackendKind::kFunc;
    c.nodes = 1;
    c.rdma_host_bytes = uint64_t{128} << 20;
    c.microcode.rcxts = 64;
    cluster_ = std::move(*Cluster::Create(c));
    host_ = cluster_->MakeTaskHost(0);
    cache_ = std::make_unique<ulp::RegistrationCache>(*host_, 3);
  }
  uint64_t Map(uint64_t bytes, uint32_t shift = abi::kPageShift64K) {
    return *cluster_->address_space(0).Map(bytes, shift);
  }
  /** The TCE behind a PVO, read from the node's tables. */
  abi::TceEntry Tce(uint64_t pvo) {
    const uint32_t t = abi::PvoTable(pvo);
    const host::HostRegion r = cluster_->tce_tables(0).table_region(t);
    const uint64_t index = abi::PvoOffset(pvo) >> cluster_->tce_tables(0).page_shift(t);
    abi::TceEntry e;
    std::memcpy(&e, r.ptr + index * sizeof(e), sizeof(e));
    return e;
  }
  /** Other work of the simulation: an event just after `s` seconds from now (so a tick due
   *  at the same whole second runs too), run with everything before it. */
  void AdvanceSeconds(uint64_t s) {
    cluster_->events().After(s * kSecond + 1, [] {});
    cluster_->events().RunWhile([] { return true; });
  }
  static constexpr uint64_t kSecond = ulp::RegistrationCache::kTickPs;

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<hal::TaskHost> host_;
  std::unique_ptr<ulp::RegistrationCache> cache_;
};

TEST_F(RegistrationCacheTest, ReuseOfARegisteredBufferIsAHit) {
  const uint64_t v = Map(1 << 20);
  auto first = cache_->Acquire(v + 100, 5000);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->size(), 1u);
  cache_->Release(v + 100, 5000);
  auto second = cache_->Acquire(v + 4096, 100'000);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(cache_->stats().misses, 1u);
  EXPECT_EQ(cache_->stats().hits, 1u);
  // The same registration: PVOs differ by the byte distance.
  EXPECT_EQ((*second)[0].pvo - (*first)[0].pvo, 4096u - 100u);
  EXPECT_TRUE(cache_->IsRegistered(v));
  EXPECT_EQ(cache_->registered_fragments(), 1u);
}

TEST_F(RegistrationCacheTest, TwoMappingsInOneFragmentGetTheirOwnRuns) {
  const uint64_t a = Map(1 << 20), b = Map(1 << 20);
  ASSERT_EQ(a >> 24, b >> 24) << "both mappings should share a 16 MiB fragment";
  ASSERT_TRUE(cache_->Acquire(a, 1 << 20).ok());
  ASSERT_TRUE(cache_->Acquire(b, 1 << 20).ok());  // the first is still in use
  EXPECT_EQ(cache_->stats().misses, 2u);
  EXPECT_EQ(cache_->registered_fragments(), 1u);
}

TEST_F(RegistrationCacheTest, ABufferAcrossAFragmentBoundaryGetsOneSpanPerFragment) {
  const uint64_t v = Map(40u << 20, abi::kPageShift16M);
  const uint64_t start = v + (16u << 20) - 1000;  // 1000 bytes before a boundary
  auto spans = cache_->Acquire(start, 5000);
  ASSERT_TRUE(spans.ok()) << spans.status().message();
  ASSERT_EQ(spans->size(), 2u);
  EXPECT_EQ((*spans)[0].len, 1000u);
  EXPECT_EQ((*spans)[1].len, 4000u);
  EXPECT_EQ((*spans)[1].vaddr, v + (16u << 20));
}

TEST_F(RegistrationCacheTest, IdleFragmentsAgeOutButBusyOnesStay) {
  const uint64_t idle = Map(1 << 20), busy = Map(32u << 20, abi::kPageShift16M);
  ASSERT_TRUE(cache_->Acquire(idle, 4096).ok());
  cache_->Release(idle, 4096);
  ASSERT_TRUE(cache_->Acquire(busy, 4096).ok());               // never released
  const uint64_t pvo = (*cache_->Acquire(idle, 4096))[0].pvo;  // referenced: idle count 0
  cache_->Release(idle, 4096);
  AdvanceSeconds(2);
  EXPECT_EQ(cache_->stats().ticks, 2u);
  EXPECT_EQ(cache_->stats().evictions, 0u);
  EXPECT_EQ(Tce(pvo).flags, abi::kTceValid);
  // The third tick deregisters it with no call into the cache: the task has stopped
  // transferring, and its idle TCEs are freed on time all the same.
  AdvanceSeconds(1);
  EXPECT_EQ(cache_->stats().ticks, 3u);
  EXPECT_EQ(cache_->stats().evictions, 1u);
  EXPECT_FALSE(cache_->IsRegistered(idle));
  EXPECT_TRUE(cache_->IsRegistered(busy));
  EXPECT_EQ(Tce(pvo).flags, 0u);  // deregistered: the TCE is invalid
  // Nothing unused is left: the ticks stop.
  AdvanceSeconds(5);
  EXPECT_EQ(cache_->stats().ticks, 3u);
}

TEST_F(RegistrationCacheTest, SecondsInUseAreNotChargedAsIdle) {
  const uint64_t v = Map(1 << 20);
  ASSERT_TRUE(cache_->Acquire(v, 4096).ok());
  AdvanceSeconds(5);  // in use all along
  EXPECT_EQ(cache_->stats().ticks, 0u);
  cache_->Release(v, 4096);
  AdvanceSeconds(2);
  EXPECT_TRUE(cache_->IsRegistered(v));
  EXPECT_EQ(cache_->stats().evictions, 0u);
  // Used again: its idle count starts over.
  ASSERT_TRUE(cache_->Acquire(v, 4096).ok());
  cache_->Release(v, 4096);
  AdvanceSeconds(2);
  EXPECT_TRUE(cache_->IsRegistered(v));
  AdvanceSeconds(1);
  EXPECT_FALSE(cache_->IsRegistered(v));
  EXPECT_EQ(cache_->stats().hits, 1u);
  EXPECT_EQ(cache_->stats().evictions, 1u);
}

TEST_F(RegistrationCacheTest, TheAgingTickKeepsNoRunAlive) {
  const uint64_t v = Map(1 << 20);
  ASSERT_TRUE(cache_->Acquire(v, 4096).ok());
  cache_->Release(v, 4096);
  // Nothing else to do: the queue counts as empty, no tick runs and the clock stays put.
  EXPECT_TRUE(cluster_->events().empty());
  EXPECT_EQ(cluster_->events().background_pending(), 1u);
  cluster_->events().RunWhile([] { return true; });
  EXPECT_EQ(cluster_->events().now_ps(), 0u);
  EXPECT_EQ(cache_->stats().ticks, 0u);
  EXPECT_TRUE(cache_->IsRegistered(v));
  // Work that ends between two ticks ends the run there.
  AdvanceSeconds(1);
  cluster_->events().After(kSecond / 2, [] {});
  cluster_->events().RunWhile([] { return true; });
  EXPECT_EQ(cluster_->events().now_ps(), kSecond + 1 + kSecond / 2);
  EXPECT_EQ(cache_->stats().ticks, 1u);
}

TEST_F(RegistrationCacheTest, APendingTickOutlivesItsCacheHarmlessly) {
  const uint64_t v = Map(1 << 20);
  ASSERT_TRUE(cache_->Acquire(v, 4096).ok());
  cache_->Release(v, 4096);
  cache_.reset();  // deregisters everything; its tick is still pending
  AdvanceSeconds(2);
  EXPECT_EQ(cluster_->events().background_pending(), 0u);
}

TEST_F(RegistrationCacheTest, MemoryChangedBehindAFragmentIsRegisteredAgain) {
  const uint64_t v = Map(1 << 20);
  auto before = cache_->Acquire(v, 1 << 20);
  ASSERT_TRUE(before.ok());
  cache_->Release(v, 1 << 20);
  // Another segment is attached at the same address: new real pages behind it.
  ASSERT_TRUE(cluster_->address_space(0).Remap(v).ok());
  auto after = cache_->Acquire(v, 1 << 20);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(cache_->stats().remaps, 1u);
  // The old PVO no longer reaches memory: its TCEs were reused with another key.
  const abi::TceEntry old = Tce((*before)[0].pvo);
  EXPECT_TRUE(old.flags == 0 || old.key != abi::TceKeyFor((*before)[0].pvo));
  const abi::TceEntry fresh = Tce((*after)[0].pvo);
  EXPECT_EQ(fresh.flags, abi::kTceValid);
  EXPECT_EQ(fresh.real_addr, cluster_->address_space(0).Lookup(v)->real_addr);
}

TEST_F(RegistrationCacheTest, UnmappedMemoryIsRefused) {
  EXPECT_FALSE(cache_->Acquire(0x1234'0000, 4096).ok());
  const uint64_t v = Map(64 * 1024);
  EXPECT_FALSE(cache_->Acquire(v, 128 * 1024).ok());  // runs into the guard page
  EXPECT_EQ(cache_->registered_fragments(), 0u);
}

}  // namespace
}  // namespace nicsim::sim
