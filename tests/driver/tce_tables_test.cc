// SPDX-License-Identifier: Apache-2.0
// Node-global TCE tables on two functional adapters sharing one host memory: descriptors and
// ownership in SRAM, job slots, registration (PVO fields, TCE contents), keys and errors.
#include "driver/tce_tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/rdma.h"
#include "driver/adapter_driver.h"
#include "host/address_space.h"
#include "hw/func/func_adapter.h"
#include "hw/func/func_device_access.h"

namespace nicsim::driver {
namespace {

constexpr uint64_t k4K = uint64_t{1} << abi::kPageShift4K;
constexpr uint64_t k64K = uint64_t{1} << abi::kPageShift64K;
constexpr uint64_t k16M = uint64_t{1} << abi::kPageShift16M;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/** A page table written by hand, for layouts an host::AddressSpace never makes. */
class FakePageTable final : public host::PageTable {
 public:
  void Add(uint64_t vaddr, uint64_t real, uint32_t shift) { pages_[vaddr] = {real, shift}; }
  std::optional<host::PageMapping> Lookup(uint64_t vaddr) const override {
    for (const auto& [v, m] : pages_) {
      if (vaddr >= v && vaddr - v < (uint64_t{1} << m.page_shift)) return m;
    }
    return std::nullopt;
  }

 private:
  std::map<uint64_t, host::PageMapping> pages_;
};

class TceTablesTest : public ::testing::Test {
 protected:
  TceTablesTest()
      : host_(96 << 20),
        adapter0_(events_, host_, 0, 128, hw::func::AdapterTiming{}, fw::MicrocodeConfig{}),
        adapter1_(events_, host_, 1, 128, hw::func::AdapterTiming{}, fw::MicrocodeConfig{}),
        access0_(adapter0_),
        access1_(adapter1_),
        driver0_(access0_),
        space_(host_, 11) {
    EXPECT_TRUE(driver0_.Init().ok());
    tce_ = Make(TceConfig{});
    tce_->AttachAdapter(access0_);
    tce_->AttachAdapter(access1_);
  }

  std::unique_ptr<TceTables> Make(const TceConfig& config) {
    Result<std::unique_ptr<TceTables>> tce = TceTables::Create(access0_, config);
    EXPECT_TRUE(tce.ok()) << tce.status().message();
    return tce.ok() ? std::move(*tce) : nullptr;
  }

  static abi::TceTableDesc ReadDesc(DeviceAccess& adapter, uint32_t t) {
    uint64_t words[4];
    for (uint32_t i = 0; i < 4; ++i) {
      words[i] = adapter.MmioRead(abi::kMmioSramBase + abi::TceDescAddr(t) + 8 * i);
    }
    abi::TceTableDesc desc;
    std::memcpy(&desc, words, sizeof(desc));
    return desc;
  }

  static abi::TceEntry ReadTce(const TceTables& tce, uint32_t t, uint32_t index) {
    abi::TceEntry entry;
    std::memcpy(&entry, tce.table_region(t).ptr + index * sizeof(entry), sizeof(entry));
    return entry;
  }

  /** Tables whose SRAM descriptor in `adapter` names `job` as owner, by page shift. */
  static std::map<uint32_t, std::vector<uint32_t>> OwnedInSram(DeviceAccess& adapter,
                                                               uint32_t job) {
    std::map<uint32_t, std::vector<uint32_t>> owned;
    for (uint32_t t = 0; t < abi::kTceTables; ++t) {
      const abi::TceTableDesc d = ReadDesc(adapter, t);
      if (d.page_shift != 0 && d.owner_job == job) owned[d.page_shift].push_back(t);
    }
    return owned;
  }

  uint64_t Map(uint64_t bytes, uint32_t shift) {
    Result<uint64_t> v = space_.Map(bytes, shift);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : 0;
  }

  kernel::EventQueue events_;
  host::HostMemory host_;
  hw::func::FuncAdapter adapter0_;
  hw::func::FuncAdapter adapter1_;
  hw::func::FuncDeviceAccess access0_;
  hw::func::FuncDeviceAccess access1_;
  AdapterDriver driver0_;
  host::AddressSpace space_;
  std::unique_ptr<TceTables> tce_;
};

TEST_F(TceTablesTest, DescribesEveryTableInEveryAdapterWithNoOwner) {
  ASSERT_EQ(tce_->table_count(), 32u);
  std::map<uint32_t, uint32_t> per_shift;
  for (uint32_t t = 0; t < abi::kTceTables; ++t) {
    const host::HostRegion region = tce_->table_region(t);
    const uint32_t entries = tce_->page_shift(t) == abi::kPageShift16M   ? 256
                             : tce_->page_shift(t) == abi::kPageShift64K ? 4096
                                                                         : 32768;
    ++per_shift[tce_->page_shift(t)];
    EXPECT_EQ(region.bytes, entries * sizeof(abi::TceEntry)) << t;
    EXPECT_TRUE(host_.IsAllocated(region.real_addr, region.bytes)) << t;
    for (DeviceAccess* a :
         {static_cast<DeviceAccess*>(&access0_), static_cast<DeviceAccess*>(&access1_)}) {
      const abi::TceTableDesc d = ReadDesc(*a, t);
      EXPECT_EQ(d.base_addr, region.real_addr) << t;
      EXPECT_EQ(d.entries, entries) << t;
      EXPECT_EQ(d.page_shift, tce_->page_shift(t)) << t;
      EXPECT_EQ(d.owner_job, abi::kNoJob) << t;
    }
  }
  EXPECT_EQ(per_shift,
            (std::map<uint32_t, uint32_t>{
                {abi::kPageShift4K, 10}, {abi::kPageShift64K, 2}, {abi::kPageShift16M, 20}}));
}

TEST_F(TceTablesTest, ReserveJobGivesASlotsTablesToTheJobInEveryAdapter) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  ASSERT_TRUE(tce_->ReserveJob(9).ok());
  const auto seven = OwnedInSram(access0_, 7);
  EXPECT_EQ(seven.at(abi::kPageShift16M).size(), 4u);
  EXPECT_EQ(seven.at(abi::kPageShift4K).size(), 2u);
  EXPECT_EQ(seven.count(abi::kPageShift64K), 0u);  // only on a first 64K registration
  EXPECT_EQ(OwnedInSram(access1_, 7), seven);
  const auto nine = OwnedInSram(access1_, 9);
  EXPECT_EQ(nine.at(abi::kPageShift16M).size(), 4u);
  EXPECT_EQ(nine.at(abi::kPageShift4K).size(), 2u);
  for (const auto& [shift, tables] : nine) {
    for (uint32_t t : tables) EXPECT_EQ(tce_->owner(t), 9u);
    for (uint32_t t : seven.at(shift)) EXPECT_EQ(std::count(tables.begin(), tables.end(), t), 0);
  }
}

TEST_F(TceTablesTest, JobSlotsAreLimitedAndExclusive) {
  EXPECT_EQ(tce_->ReserveJob(abi::kNoJob).message(), "reserve job 0: JOBID 0 means no job");
  for (uint32_t job = 1; job <= 5; ++job) ASSERT_TRUE(tce_->ReserveJob(job).ok()) << job;
  EXPECT_EQ(tce_->ReserveJob(3).message(), "reserve job 3: already holds a job slot");
  EXPECT_EQ(tce_->ReserveJob(6).message(), "reserve job 6: all 5 job slots are taken");
  ASSERT_TRUE(tce_->ReleaseJob(2).ok());
  EXPECT_TRUE(OwnedInSram(access0_, 2).empty());
  ASSERT_TRUE(tce_->ReserveJob(6).ok());
  EXPECT_EQ(OwnedInSram(access0_, 6).at(abi::kPageShift4K).size(), 2u);
  EXPECT_EQ(tce_->ReleaseJob(2).message(), "release job 2: holds no job slot");
}

TEST_F(TceTablesTest, RegisterMapsScatteredPagesAndThePvoAddressesEveryByte) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t v = Map(6 * k4K, abi::kPageShift4K);
  const uint64_t start = v + 100;
  Result<Registration> reg = tce_->Register(7, space_, start, 4 * k4K);
  ASSERT_TRUE(reg.ok()) << reg.status().message();
  EXPECT_EQ(reg->tces, 5u);  // 100 + 16384 bytes span five pages
  EXPECT_EQ(reg->first_tce, 0u);
  EXPECT_EQ(reg->length, 4 * k4K);
  EXPECT_EQ(reg->job, 7u);
  EXPECT_EQ(abi::PvoTable(reg->pvo), reg->table);
  EXPECT_EQ(tce_->owner(reg->table), 7u);
  EXPECT_EQ(tce_->page_shift(reg->table), abi::kPageShift4K);
  EXPECT_EQ(abi::PvoOffset(reg->pvo), 0 * k4K + 100);
  EXPECT_NE(abi::PvoKey(reg->pvo), 0u);
  EXPECT_LT(abi::PvoKey(reg->pvo), 1u << abi::kPvoKeyBits);
  for (uint32_t i = 0; i < 5; ++i) {
    const abi::TceEntry e = ReadTce(*tce_, reg->table, reg->first_tce + i);
    EXPECT_EQ(e.real_addr, space_.Lookup(v + i * k4K)->real_addr) << i;
    EXPECT_EQ(e.key, abi::TceKeyFor(reg->pvo)) << i;
    EXPECT_EQ(e.key >> abi::kPvoKeyBits, reg->table) << i;
    EXPECT_EQ(e.flags, abi::kTceValid) << i;
    if (i > 0) {
      EXPECT_NE(e.real_addr, ReadTce(*tce_, reg->table, i - 1).real_addr + k4K);
    }
  }
  EXPECT_EQ(ReadTce(*tce_, reg->table, 5).flags, 0u);
  // Translate PVO + n the way the adapter does; it lands on the byte the CPU wrote at start + n.
  for (uint64_t n : {uint64_t{0}, k4K - 101, k4K - 100, 3 * k4K + 7, 4 * k4K - 1}) {
    const uint8_t byte = static_cast<uint8_t>(n * 7 + 1);
    ASSERT_TRUE(space_.Write(start + n, &byte, 1));
    const uint64_t offset = abi::PvoOffset(reg->pvo + n);
    const abi::TceEntry e = ReadTce(*tce_, abi::PvoTable(reg->pvo + n), offset >> 12);
    EXPECT_EQ(*host_.Translate(e.real_addr + offset % k4K, 1), byte) << n;
  }
}

TEST_F(TceTablesTest, RegistrationsTakeTheFirstFreeRunAndDeregisterFreesIt) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t a = Map(3 * k4K, abi::kPageShift4K);
  const uint64_t b = Map(3 * k4K, abi::kPageShift4K);
  const uint64_t c = Map(2 * k4K, abi::kPageShift4K);
  Registration ra = *tce_->Register(7, space_, a, 3 * k4K);
  Registration rb = *tce_->Register(7, space_, b, 3 * k4K);
  EXPECT_EQ(ra.first_tce, 0u);
  EXPECT_EQ(rb.first_tce, 3u);
  EXPECT_EQ(rb.table, ra.table);
  EXPECT_EQ(abi::PvoOffset(rb.pvo), 3 * k4K);
  ASSERT_TRUE(tce_->Deregister(ra).ok());
  for (uint32_t i = 0; i < 3; ++i) {
    const abi::TceEntry e = ReadTce(*tce_, ra.table, i);
    EXPECT_EQ(e.flags, 0u) << i;
    EXPECT_EQ(e.key, abi::TceKeyFor(ra.pvo)) << i;  // kept for diagnostics; not valid
  }
  EXPECT_EQ(ReadTce(*tce_, rb.table, 3).flags, abi::kTceValid);
  Registration rc = *tce_->Register(7, space_, c, 2 * k4K);
  EXPECT_EQ(rc.first_tce, 0u);
  // TCE 2 alone is free before rb's run: a two-page buffer goes after rb, one page into it.
  Registration re = *tce_->Register(7, space_, c, 2 * k4K);
  EXPECT_EQ(re.first_tce, 6u);
  Registration rd = *tce_->Register(7, space_, c + k4K, 1);
  EXPECT_EQ(rd.first_tce, 2u);
  EXPECT_EQ(abi::PvoOffset(rd.pvo), 2 * k4K);
  EXPECT_EQ(ReadTce(*tce_, re.table, 6).real_addr, space_.Lookup(c)->real_addr);
  // The same buffer may be registered twice; each registration has its own key.
  EXPECT_NE(abi::PvoKey(re.pvo), abi::PvoKey(rc.pvo));
}

TEST_F(TceTablesTest, DeregisterRefusesWhatIsNotLive) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t v = Map(k4K, abi::kPageShift4K);
  Registration reg = *tce_->Register(7, space_, v, 64);
  Registration forged = reg;
  forged.pvo ^= uint64_t{1} << 50;
  EXPECT_FALSE(tce_->Deregister(forged).ok());
  ASSERT_TRUE(tce_->Deregister(reg).ok());
  EXPECT_NE(tce_->Deregister(reg).message().find("not a live registration"), std::string::npos);
}

TEST_F(TceTablesTest, KeysReplayForTheSameSeedAndDifferForAnother) {
  const uint64_t v = Map(4 * k4K, abi::kPageShift4K);
  const auto keys = [&](uint64_t seed) {
    TceConfig config;
    config.key_seed = seed;
    std::unique_ptr<TceTables> tce = Make(config);
    EXPECT_TRUE(tce->ReserveJob(7).ok());
    std::vector<uint64_t> pvos;
    for (int i = 0; i < 4; ++i) pvos.push_back(tce->Register(7, space_, v + 8, 3 * k4K)->pvo);
    return pvos;
  };
  tce_.reset();  // a reboot: the old tables go
  const std::vector<uint64_t> first = keys(1);
  EXPECT_EQ(keys(1), first);
  const std::vector<uint64_t> other = keys(0x5eed);
  ASSERT_EQ(other.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_NE(abi::PvoKey(other[i]), abi::PvoKey(first[i])) << i;
    EXPECT_EQ(abi::PvoOffset(other[i]), abi::PvoOffset(first[i])) << i;  // same buffer, same TCEs
  }
}

TEST_F(TceTablesTest, SixtyFourKilobyteTablesAreHandedOutOnFirstUse) {
  for (uint32_t job : {1u, 2u, 3u}) ASSERT_TRUE(tce_->ReserveJob(job).ok());
  const uint64_t v = Map(2 * k64K, abi::kPageShift64K);
  Result<Registration> r1 = tce_->Register(1, space_, v + k64K + 5, 10);
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_EQ(tce_->page_shift(r1->table), abi::kPageShift64K);
  EXPECT_EQ(abi::PvoOffset(r1->pvo), 5u);
  EXPECT_EQ(ReadTce(*tce_, r1->table, 0).real_addr, space_.Lookup(v + k64K)->real_addr);
  EXPECT_EQ(OwnedInSram(access0_, 1).at(abi::kPageShift64K), std::vector<uint32_t>{r1->table});
  EXPECT_EQ(OwnedInSram(access1_, 1).at(abi::kPageShift64K), std::vector<uint32_t>{r1->table});
  // The job's second 64K buffer goes in the same table.
  Result<Registration> r1b = tce_->Register(1, space_, v, 2 * k64K);
  ASSERT_TRUE(r1b.ok());
  EXPECT_EQ(r1b->table, r1->table);
  EXPECT_EQ(r1b->first_tce, 1u);
  Result<Registration> r2 = tce_->Register(2, space_, v, k64K);
  ASSERT_TRUE(r2.ok());
  EXPECT_NE(r2->table, r1->table);
  EXPECT_EQ(tce_->owner(r2->table), 2u);
  EXPECT_NE(tce_->Register(3, space_, v, k64K).status().message().find("no run of 1 free 64K TCEs"),
            std::string::npos);
  // Releasing job 1 returns its 64K table for job 3.
  ASSERT_TRUE(tce_->ReleaseJob(1).ok());
  EXPECT_EQ(tce_->owner(r1->table), abi::kNoJob);
  EXPECT_EQ(ReadDesc(access1_, r1->table).owner_job, abi::kNoJob);
  Result<Registration> r3 = tce_->Register(3, space_, v, k64K);
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->table, r1->table);
  EXPECT_EQ(r3->first_tce, 0u);
}

TEST_F(TceTablesTest, SixteenMegabytePagesGoInTheJobsSixteenMegabyteTables) {
  ASSERT_TRUE(tce_->ReserveJob(4).ok());
  const uint64_t v = Map(2 * k16M, abi::kPageShift16M);
  Result<Registration> reg = tce_->Register(4, space_, v + k16M - 4096, 8192);
  ASSERT_TRUE(reg.ok()) << reg.status().message();
  EXPECT_EQ(reg->tces, 2u);
  EXPECT_EQ(tce_->page_shift(reg->table), abi::kPageShift16M);
  EXPECT_EQ(OwnedInSram(access0_, 4).at(abi::kPageShift16M).front(), reg->table);
  EXPECT_EQ(abi::PvoOffset(reg->pvo), k16M - 4096);
  EXPECT_EQ(ReadTce(*tce_, reg->table, 0).real_addr, space_.Lookup(v)->real_addr);
  EXPECT_EQ(ReadTce(*tce_, reg->table, 1).real_addr, space_.Lookup(v + k16M)->real_addr);
}

TEST_F(TceTablesTest, RegisterRefusesBadBuffers) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t v = Map(2 * k4K, abi::kPageShift4K);
  const auto error = [&](uint32_t job, const host::PageTable& pages, uint64_t vaddr, uint64_t len) {
    Result<Registration> r = tce_->Register(job, pages, vaddr, len);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(error(8, space_, v, 10).find("the job holds no job slot"), std::string::npos);
  EXPECT_NE(error(abi::kNoJob, space_, v, 10).find("no job slot"), std::string::npos);
  EXPECT_NE(error(7, space_, v, 0).find("length 0"), std::string::npos);
  // Runs one byte into the guard page after the mapping.
  EXPECT_NE(error(7, space_, v, 2 * k4K + 1).find("is not mapped"), std::string::npos);
  EXPECT_NE(error(7, space_, v - k4K, 10).find("is not mapped"), std::string::npos);
  EXPECT_NE(error(7, space_, ~uint64_t{0} - 5, 10).find("wraps"), std::string::npos);
  FakePageTable mixed;
  mixed.Add(0x10000, host_.kBaseAddr + 0x40000, abi::kPageShift4K);
  mixed.Add(0x11000, host_.kBaseAddr + 0x50000, abi::kPageShift64K);
  EXPECT_NE(error(7, mixed, 0x10000, 2 * k4K).find("mixes page sizes"), std::string::npos);
  FakePageTable odd;
  odd.Add(0x20000, host_.kBaseAddr + 0x40000, 13);
  EXPECT_NE(error(7, odd, 0x20000, 10).find("not supported"), std::string::npos);
  // Nothing was written: every TCE of the job's 4K tables is still invalid.
  for (uint32_t t = 0; t < tce_->table_count(); ++t) {
    if (tce_->owner(t) == 7 && tce_->page_shift(t) == abi::kPageShift4K) {
      EXPECT_EQ(ReadTce(*tce_, t, 0).flags, 0u);
    }
  }
}

TEST_F(TceTablesTest, RegisterFailsWhenNoTableHasARunFree) {
  tce_.reset();
  TceConfig config;
  config.entries_4k = 8;
  tce_ = Make(config);
  tce_->AttachAdapter(access0_);
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t v = Map(9 * k4K, abi::kPageShift4K);
  Registration a = *tce_->Register(7, space_, v, 6 * k4K);
  Registration b = *tce_->Register(7, space_, v, 3 * k4K);  // does not fit after a
  EXPECT_NE(b.table, a.table);
  EXPECT_EQ(b.first_tce, 0u);
  EXPECT_EQ(tce_->Register(7, space_, v, 6 * k4K).status().message(),
            "register " + Hex(v) +
                "+24576 for job 7: no run of 6 free 4K TCEs in the "
                "job's tables");
  EXPECT_NE(tce_->Register(7, space_, v, 9 * k4K)
                .status()
                .message()
                .find("needs 9 4K TCEs, a table holds 8"),
            std::string::npos);
  ASSERT_TRUE(tce_->Deregister(a).ok());
  EXPECT_TRUE(tce_->Register(7, space_, v, 6 * k4K).ok());
}

TEST_F(TceTablesTest, ReleaseJobInvalidatesEveryTceAndDisownsTheTables) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const uint64_t v = Map(3 * k4K, abi::kPageShift4K);
  Registration reg = *tce_->Register(7, space_, v, 3 * k4K);
  // A TCE the driver rewrote by hand is invalidated too.
  abi::TceEntry extra{0x1234000, 5, abi::kTceValid};
  std::memcpy(tce_->table_region(reg.table).ptr + 100 * sizeof(extra), &extra, sizeof(extra));
  ASSERT_TRUE(tce_->ReleaseJob(7).ok());
  for (uint32_t i = 0; i < 32768; ++i) ASSERT_EQ(ReadTce(*tce_, reg.table, i).flags, 0u) << i;
  EXPECT_TRUE(OwnedInSram(access0_, 7).empty());
  EXPECT_TRUE(OwnedInSram(access1_, 7).empty());
  EXPECT_EQ(ReadDesc(access0_, reg.table).owner_job, abi::kNoJob);
  EXPECT_FALSE(tce_->Deregister(reg).ok());
  EXPECT_FALSE(tce_->Register(7, space_, v, 10).ok());
  // The next job starts from empty tables.
  ASSERT_TRUE(tce_->ReserveJob(8).ok());
  EXPECT_EQ(tce_->Register(8, space_, v, 10)->first_tce, 0u);
}

TEST_F(TceTablesTest, AttachAgainAfterRecoveryRestoresDescriptorsAndOwners) {
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  const auto owned = OwnedInSram(access0_, 7);
  driver0_.RecoverAdapter();
  EXPECT_EQ(ReadDesc(access0_, 0).base_addr, 0u);  // recovery zeroed SRAM
  EXPECT_TRUE(OwnedInSram(access0_, 7).empty());
  EXPECT_EQ(OwnedInSram(access1_, 7), owned);  // the other adapter is untouched
  tce_->AttachAdapter(access0_);
  EXPECT_EQ(OwnedInSram(access0_, 7), owned);
  for (uint32_t t = 0; t < abi::kTceTables; ++t) {
    EXPECT_EQ(ReadDesc(access0_, t).base_addr, tce_->table_region(t).real_addr) << t;
  }
  // Attached once, not twice: a release still reaches it.
  ASSERT_TRUE(tce_->ReleaseJob(7).ok());
  EXPECT_TRUE(OwnedInSram(access0_, 7).empty());
}

TEST_F(TceTablesTest, DetachedAdapterReachesNoTableAndHearsNoMore) {
  tce_->DetachAdapter(access1_);
  for (uint32_t t = 0; t < abi::kTceTables; ++t) {
    EXPECT_EQ(ReadDesc(access1_, t).base_addr, 0u) << t;
    EXPECT_EQ(ReadDesc(access1_, t).page_shift, 0u) << t;
  }
  ASSERT_TRUE(tce_->ReserveJob(7).ok());
  EXPECT_TRUE(OwnedInSram(access1_, 7).empty());
  EXPECT_EQ(OwnedInSram(access0_, 7).at(abi::kPageShift4K).size(), 2u);
}

TEST_F(TceTablesTest, CreateRejectsBadConfigs) {
  const auto error = [&](TceConfig config) {
    Result<std::unique_ptr<TceTables>> r = TceTables::Create(access0_, config);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  TceConfig c;
  c.job_slots = 0;
  EXPECT_EQ(error(c), "tce config: job_slots must be positive");
  c = TceConfig{};
  c.tables_4k = 11;
  EXPECT_EQ(error(c), "tce config: 33 tables, an adapter reaches at most 32");
  c = TceConfig{};
  c.entries_16m = 0;
  EXPECT_EQ(error(c), "tce config: entries_16m must be in [1, 262144]");
  c = TceConfig{};
  c.entries_16m = 262145;  // one more would carry out of the PVO's 42-bit offset
  EXPECT_FALSE(error(c).empty());
  const uint64_t in_use = host_.bytes_in_use();
  c = TceConfig{};
  c.entries_4k = 1u << 30;
  EXPECT_NE(error(c).find("host memory exhausted"), std::string::npos);
  EXPECT_EQ(host_.bytes_in_use(), in_use);  // the tables allocated before are freed
}

}  // namespace
}  // namespace nicsim::driver
