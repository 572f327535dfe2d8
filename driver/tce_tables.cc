// SPDX-License-Identifier: Apache-2.0
// Node-global TCE tables: table setup and job slots, descriptor writes into every attached
// adapter's SRAM, and buffer registration (first-fit TCE runs, PVO keys from a seeded stream).
#include "driver/tce_tables.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

namespace nicsim::driver {
namespace {

constexpr uint32_t kKeyMask = (1u << abi::kPvoKeyBits) - 1;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* PageName(uint32_t shift) {
  switch (shift) {
    case abi::kPageShift4K:
      return "4K";
    case abi::kPageShift64K:
      return "64K";
    case abi::kPageShift16M:
      return "16M";
    default:
      return "unsupported";
  }
}

}  // namespace

TceTables::TceTables(DeviceAccess& memory, const TceConfig& config)
    : memory_(memory),
      config_(config),
      keys_(config.key_seed, "pvo-keys"),
      slot_job_(config.job_slots, abi::kNoJob) {}

Result<std::unique_ptr<TceTables>> TceTables::CreateForJob(
    const std::vector<DeviceAccess*>& adapters, const TceConfig& config, uint32_t job) {
  NICSIM_CHECK(!adapters.empty(), "tce tables: a node needs an adapter");
  Result<std::unique_ptr<TceTables>> tables = Create(*adapters.front(), config);
  if (!tables.ok()) return tables.status();
  for (DeviceAccess* adapter : adapters) (*tables)->AttachAdapter(*adapter);
  if (Status s = (*tables)->ReserveJob(job); !s.ok()) return s;
  return tables;
}

Result<std::unique_ptr<TceTables>> TceTables::Create(DeviceAccess& memory,
                                                     const TceConfig& config) {
  if (config.job_slots == 0) return Status::Error("tce config: job_slots must be positive");
  const uint64_t total = uint64_t{config.tables_16m} + config.tables_4k + config.tables_64k;
  if (total > abi::kTceTables) {
    return Status::Error("tce config: " + std::to_string(total) +
                         " tables, an adapter reaches at most " + std::to_string(abi::kTceTables));
  }
  struct Kind {
    const char* name;
    uint32_t tables;
    uint32_t entries;
    uint32_t shift;
  };
  const Kind kinds[] = {
      {"entries_16m", config.tables_16m, config.entries_16m, abi::kPageShift16M},
      {"entries_4k", config.tables_4k, config.entries_4k, abi::kPageShift4K},
      {"entries_64k", config.tables_64k, config.entries_64k, abi::kPageShift64K},
  };
  for (const Kind& k : kinds) {
    if (k.tables == 0) continue;
    // Every byte a table maps must be addressable by a PVO's offset field.
    if (k.entries == 0 || (uint64_t{k.entries} << k.shift) - 1 > abi::kPvoOffsetMask) {
      return Status::Error(std::string("tce config: ") + k.name + " must be in [1, " +
                           std::to_string((abi::kPvoOffsetMask + 1) >> k.shift) + "]");
    }
  }

  std::unique_ptr<TceTables> tce(new TceTables(memory, config));
  // Table indices: the 16M tables, then the 4K tables, then the shared 64K tables. Slot s
  // holds the s-th share of the 16M and of the 4K tables; any remainder stays unowned.
  const uint32_t per_slot_16m = config.tables_16m / config.job_slots;
  const uint32_t per_slot_4k = config.tables_4k / config.job_slots;
  for (const Kind& k : kinds) {
    const uint32_t per_slot = k.shift == abi::kPageShift16M ? per_slot_16m : per_slot_4k;
    for (uint32_t i = 0; i < k.tables; ++i) {
      Table t;
      t.entries = k.entries;
      t.page_shift = k.shift;
      if (k.shift == abi::kPageShift64K) {
        t.slot = kShared;
      } else {
        t.slot = per_slot == 0 || i / per_slot >= config.job_slots ? kUnassigned : i / per_slot;
      }
      Result<host::HostRegion> region =
          memory.AllocContiguous(uint64_t{k.entries} * sizeof(abi::TceEntry));
      if (!region.ok()) {
        return Status::Error("tce tables: " + region.status().message());  // ~TceTables frees
      }
      t.region = *region;
      tce->tables_.push_back(std::move(t));
    }
  }
  return tce;
}

TceTables::~TceTables() {
  for (const Table& t : tables_) memory_.FreeContiguous(t.region);
}

abi::TceTableDesc TceTables::Desc(uint32_t t) const {
  abi::TceTableDesc desc{};
  if (t < tables_.size()) {
    desc.base_addr = tables_[t].region.real_addr;
    desc.entries = tables_[t].entries;
    desc.page_shift = tables_[t].page_shift;
    desc.owner_job = tables_[t].owner;
  }
  return desc;
}

void TceTables::WriteDesc(DeviceAccess& adapter, uint32_t t, const abi::TceTableDesc& desc) {
  uint64_t words[sizeof(desc) / 8];
  std::memcpy(words, &desc, sizeof(desc));
  for (uint32_t i = 0; i < sizeof(desc) / 8; ++i) {
    adapter.MmioWrite(abi::kMmioSramBase + abi::TceDescAddr(t) + 8 * i, words[i]);
  }
}

void TceTables::AttachAdapter(DeviceAccess& adapter) {
  if (std::find(adapters_.begin(), adapters_.end(), &adapter) == adapters_.end()) {
    adapters_.push_back(&adapter);
  }
  for (uint32_t t = 0; t < abi::kTceTables; ++t) WriteDesc(adapter, t, Desc(t));
}

void TceTables::DetachAdapter(DeviceAccess& adapter) {
  adapters_.erase(std::remove(adapters_.begin(), adapters_.end(), &adapter), adapters_.end());
  for (uint32_t t = 0; t < abi::kTceTables; ++t) WriteDesc(adapter, t, abi::TceTableDesc{});
}

void TceTables::SetOwner(uint32_t t, uint32_t job) {
  tables_[t].owner = job;
  for (DeviceAccess* adapter : adapters_) WriteDesc(*adapter, t, Desc(t));
}

Status TceTables::ReserveJob(uint32_t job) {
  const std::string what = "reserve job " + std::to_string(job) + ": ";
  if (job == abi::kNoJob) return Status::Error(what + "JOBID 0 means no job");
  if (std::find(slot_job_.begin(), slot_job_.end(), job) != slot_job_.end()) {
    return Status::Error(what + "already holds a job slot");
  }
  auto free_slot = std::find(slot_job_.begin(), slot_job_.end(), abi::kNoJob);
  if (free_slot == slot_job_.end()) {
    return Status::Error(what + "all " + std::to_string(slot_job_.size()) + " job slots are taken");
  }
  *free_slot = job;
  const auto slot = static_cast<uint32_t>(free_slot - slot_job_.begin());
  for (uint32_t t = 0; t < tables_.size(); ++t) {
    if (tables_[t].slot == slot) SetOwner(t, job);
  }
  return Status();
}

Status TceTables::ReleaseJob(uint32_t job) {
  auto slot = std::find(slot_job_.begin(), slot_job_.end(), job);
  if (job == abi::kNoJob || slot == slot_job_.end()) {
    return Status::Error("release job " + std::to_string(job) + ": holds no job slot");
  }
  for (uint32_t t = 0; t < tables_.size(); ++t) {
    Table& table = tables_[t];
    if (table.owner != job) continue;
    // Ownership goes first so the adapters stop using the table before its TCEs change.
    SetOwner(t, abi::kNoJob);
    for (uint32_t i = 0; i < table.entries; ++i) {
      abi::TceEntry tce = ReadTce(t, i);
      tce.flags = 0;
      WriteTce(t, i, tce);
    }
    std::fill(table.used.begin(), table.used.end(), false);
  }
  for (auto it = live_.begin(); it != live_.end();) {
    it = it->second.job == job ? live_.erase(it) : std::next(it);
  }
  *slot = abi::kNoJob;
  return Status();
}

void TceTables::WriteTce(uint32_t t, uint32_t index, const abi::TceEntry& tce) {
  std::memcpy(tables_[t].region.ptr + uint64_t{index} * sizeof(tce), &tce, sizeof(tce));
}

abi::TceEntry TceTables::ReadTce(uint32_t t, uint32_t index) const {
  abi::TceEntry tce;
  std::memcpy(&tce, tables_[t].region.ptr + uint64_t{index} * sizeof(tce), sizeof(tce));
  return tce;
}

int64_t TceTables::FindRun(uint32_t t, uint32_t count) const {
  const Table& table = tables_[t];
  uint32_t run = 0;
  for (uint32_t i = 0; i < table.entries; ++i) {
    run = table.Used(i) ? 0 : run + 1;
    if (run == count) return int64_t{i} + 1 - count;
  }
  return -1;
}

uint32_t TceTables::NextKey() {
  uint32_t key = 0;
  while (key == 0) key = static_cast<uint32_t>(keys_.Next()) & kKeyMask;
  return key;
}

Result<Registration> TceTables::Register(uint32_t job, const host::PageTable& pages, uint64_t vaddr,
                                         uint64_t len, uint32_t fixed_key, uint64_t at_pvo) {
  const std::string what = "register " + Hex(vaddr) + "+" + std::to_string(len) + " for job " +
                           std::to_string(job) + ": ";
  if (job == abi::kNoJob || std::find(slot_job_.begin(), slot_job_.end(), job) == slot_job_.end()) {
    return Status::Error(what + "the job holds no job slot");
  }
  if (len == 0) return Status::Error(what + "length 0");
  if (len > ~uint64_t{0} - vaddr) return Status::Error(what + "wraps the address space");
  const std::optional<host::PageMapping> first = pages.Lookup(vaddr);
  if (!first) return Status::Error(what + "page at " + Hex(vaddr) + " is not mapped");
  const uint32_t shift = first->page_shift;
  if (shift != abi::kPageShift4K && shift != abi::kPageShift64K && shift != abi::kPageShift16M) {
    return Status::Error(what + "page size 2^" + std::to_string(shift) + " is not supported");
  }
  const uint64_t page = uint64_t{1} << shift;
  const uint64_t in_page = vaddr & (page - 1);
  const uint64_t span = in_page + len;
  const uint64_t count = span / page + (span % page != 0 ? 1 : 0);
  const uint32_t entries = shift == abi::kPageShift16M   ? config_.entries_16m
                           : shift == abi::kPageShift64K ? config_.entries_64k
                                                         : config_.entries_4k;
  if (count > entries) {
    return Status::Error(what + "needs " + std::to_string(count) + " " + PageName(shift) +
                         " TCEs, a table holds " + std::to_string(entries));
  }

  // Pin and translate: every page of the buffer, all of one size.
  std::vector<uint64_t> reals(count);
  const uint64_t base = vaddr - in_page;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t v = base + i * page;
    const std::optional<host::PageMapping> m = i == 0 ? first : pages.Lookup(v);
    if (!m) return Status::Error(what + "page at " + Hex(v) + " is not mapped");
    if (m->page_shift != shift) {
      return Status::Error(what + "mixes page sizes (" + PageName(shift) + " at " + Hex(base) +
                           ", " + PageName(m->page_shift) + " at " + Hex(v) + ")");
    }
    if (m->real_addr & (page - 1)) {
      return Status::Error(what + "real page " + Hex(m->real_addr) + " is not aligned");
    }
    reals[i] = m->real_addr;
  }

  // The first run of free TCEs in one of the job's tables of this page size. A job gets a
  // shared 64K table on its first 64K registration, and holds at most one.
  const auto find = [&](uint32_t* table, int64_t* at) {
    for (uint32_t t = 0; t < tables_.size(); ++t) {
      if (tables_[t].owner != job || tables_[t].page_shift != shift) continue;
      *at = FindRun(t, static_cast<uint32_t>(count));
      if (*at >= 0) {
        *table = t;
        return true;
      }
    }
    return false;
  };
  uint32_t table = 0;
  int64_t at = -1;
  if (at_pvo != 0) return RegisterAt(what, job, at_pvo, in_page, page, reals, len);
  bool found = find(&table, &at);
  if (!found && shift == abi::kPageShift64K) {
    bool holds_64k = false;
    for (const Table& t : tables_) holds_64k |= t.slot == kShared && t.owner == job;
    for (uint32_t t = 0; !holds_64k && t < tables_.size(); ++t) {
      if (tables_[t].slot == kShared && tables_[t].owner == abi::kNoJob) {
        SetOwner(t, job);
        found = find(&table, &at);
        break;
      }
    }
  }
  if (!found) {
    return Status::Error(what + "no run of " + std::to_string(count) + " free " + PageName(shift) +
                         " TCEs in the job's tables");
  }

  const uint32_t key = fixed_key != 0 ? fixed_key : NextKey();
  return Place(job, abi::MakePvo(key, table, static_cast<uint64_t>(at) * page + in_page), page,
               reals, len);
}

Result<Registration> TceTables::RegisterAt(const std::string& what, uint32_t job, uint64_t pvo,
                                           uint64_t in_page, uint64_t page,
                                           const std::vector<uint64_t>& reals, uint64_t len) {
  const uint32_t table = abi::PvoTable(pvo);
  const uint64_t offset = abi::PvoOffset(pvo);
  // The shared 64K table there, if the job has none yet and it is free, becomes the job's.
  if (table < tables_.size() && tables_[table].slot == kShared &&
      tables_[table].owner == abi::kNoJob) {
    bool holds_64k = false;
    for (const Table& t : tables_) holds_64k |= t.slot == kShared && t.owner == job;
    if (!holds_64k) SetOwner(table, job);
  }
  if (table >= tables_.size() || tables_[table].owner != job ||
      (uint64_t{1} << tables_[table].page_shift) != page) {
    return Status::Error(what + "PVO " + Hex(pvo) + " names table " + std::to_string(table) +
                         ", not one of the job's tables of this page size");
  }
  if (offset % page != in_page) {
    return Status::Error(what + "PVO " + Hex(pvo) + " is not at the buffer's offset in its page");
  }
  const uint64_t first = offset / page;
  const Table& t = tables_[table];
  if (first + reals.size() > t.entries) {
    return Status::Error(what + "PVO " + Hex(pvo) + " runs past the end of table " +
                         std::to_string(table));
  }
  for (uint64_t i = 0; i < reals.size(); ++i) {
    if (t.Used(first + i)) {
      return Status::Error(what + "TCE " + std::to_string(first + i) + " of table " +
                           std::to_string(table) + " is in use");
    }
  }
  return Place(job, pvo, page, reals, len);
}

Registration TceTables::Place(uint32_t job, uint64_t pvo, uint64_t page,
                              const std::vector<uint64_t>& reals, uint64_t len) {
  const uint32_t table = abi::PvoTable(pvo);
  const auto first_tce = static_cast<uint32_t>(abi::PvoOffset(pvo) / page);
  std::vector<bool>& used = tables_[table].used;
  if (used.empty()) used.assign(tables_[table].entries, false);
  for (uint32_t i = 0; i < reals.size(); ++i) {
    WriteTce(table, first_tce + i, abi::TceEntry{reals[i], abi::TceKeyFor(pvo), abi::kTceValid});
    used[first_tce + i] = true;
  }
  const Registration reg{pvo, table, first_tce, static_cast<uint32_t>(reals.size()), len, job};
  live_[{table, first_tce}] = reg;
  return reg;
}

Status TceTables::Deregister(const Registration& reg) {
  auto it = live_.find({reg.table, reg.first_tce});
  if (it == live_.end() || it->second.pvo != reg.pvo || it->second.tces != reg.tces ||
      it->second.job != reg.job) {
    return Status::Error("deregister PVO " + Hex(reg.pvo) + ": not a live registration");
  }
  for (uint32_t i = 0; i < reg.tces; ++i) {
    abi::TceEntry tce = ReadTce(reg.table, reg.first_tce + i);
    tce.flags = 0;
    WriteTce(reg.table, reg.first_tce + i, tce);
    tables_[reg.table].used[reg.first_tce + i] = false;
  }
  live_.erase(it);
  return Status();
}

host::HostRegion TceTables::table_region(uint32_t t) const {
  return t < tables_.size() ? tables_[t].region : host::HostRegion{};
}

uint32_t TceTables::page_shift(uint32_t t) const {
  return t < tables_.size() ? tables_[t].page_shift : 0;
}

uint32_t TceTables::owner(uint32_t t) const {
  return t < tables_.size() ? tables_[t].owner : abi::kNoJob;
}

}  // namespace nicsim::driver
