// SPDX-License-Identifier: Apache-2.0
// Node-global TCE tables: allocated once per node in host memory, shared by every adapter,
// owned by RDMA jobs through job slots; buffers are pinned and mapped into them as PVOs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi/rdma.h"
#include "base/rng.h"
#include "base/status.h"
#include "driver/device_access.h"
#include "host/page_table.h"

namespace nicsim::driver {

/** How many tables of each page size a node sets up, and how they are shared out. */
struct TceConfig {
  /** Tables mapping 16 MiB pages; split evenly over the job slots. */
  uint32_t tables_16m = 20;
  /** Tables mapping 4 KiB pages; split evenly over the job slots. */
  uint32_t tables_4k = 10;
  /** Tables mapping 64 KiB pages; a job gets one on its first 64 KiB registration. */
  uint32_t tables_64k = 2;
  /** Jobs that can hold TCE tables at once. */
  uint32_t job_slots = 5;
  /** TCEs per table of each page size. */
  uint32_t entries_16m = 256;
  uint32_t entries_64k = 4096;
  uint32_t entries_4k = 32768;
  /** Seed of the PVO key stream (the time base register at driver configuration). */
  uint64_t key_seed = 1;
};

/** A buffer mapped for RDMA. */
struct Registration {
  /** The PVO of the buffer's first byte. */
  uint64_t pvo;
  /** Table the buffer is mapped in. */
  uint32_t table;
  /** First TCE of the buffer and how many it takes. */
  uint32_t first_tce;
  uint32_t tces;
  /** Bytes registered. */
  uint64_t length;
  /** JOBID that registered it. */
  uint32_t job;
};

/**
 * The TCE tables of one node, shared by all its adapters. A job reserves a slot (a fixed
 * set of 16 MiB and 4 KiB tables) before registering buffers; every attached adapter's
 * SRAM descriptors follow who owns each table, so a buffer mapped once is reachable through
 * every adapter of the node that is active for the job.
 */
class TceTables {
 public:
  /**
   * Allocates every table in host memory through `memory` (any adapter of the node;
   * DeviceAccess::AllocContiguous). `memory` must outlive the tables, which free their
   * memory through it when destroyed.
   */
  static Result<std::unique_ptr<TceTables>> Create(DeviceAccess& memory, const TceConfig& config);
  /**
   * The tables of one node running one job: created through the first of `adapters` (the
   * node's adapters, at least one), attached to every one of them, with a slot reserved for
   * `job`.
   */
  static Result<std::unique_ptr<TceTables>> CreateForJob(const std::vector<DeviceAccess*>& adapters,
                                                         const TceConfig& config, uint32_t job);
  ~TceTables();
  TceTables(const TceTables&) = delete;
  TceTables& operator=(const TceTables&) = delete;

  /**
   * Writes every table's descriptor (base, entries, page_shift, owner) into the adapter's
   * SRAM at abi::TceDescAddr(t); descriptors of unused table indices are zeroed. Call for
   * each adapter of the node, and again after an adapter recovery (recovery zeroes SRAM).
   */
  void AttachAdapter(DeviceAccess& adapter);
  /** Stops updating the adapter and zeroes its descriptors: it reaches no table any more. */
  void DetachAdapter(DeviceAccess& adapter);

  /**
   * Gives `job` a free job slot; the slot's tables are then owned by `job` in every
   * attached adapter. Error if job == kNoJob, it already holds a slot, or none is free.
   */
  Status ReserveJob(uint32_t job);
  /**
   * Takes the job's slot (and 64 KiB table) back: every TCE of its tables is invalidated,
   * its registrations end and the tables' owner returns to kNoJob.
   */
  Status ReleaseJob(uint32_t job);

  /**
   * Pins and maps [vaddr, vaddr + len) of `pages` for `job`: every page must be mapped and
   * of one page size. Takes the first run of free consecutive TCEs in one of the job's
   * tables of that size, writes TceEntry{real page, TceKeyFor(pvo), kTceValid} for each
   * page and returns the registration, whose PVO addresses the byte at vaddr. A nonzero
   * `fixed_key` replaces the generated key: a broadcast or multicast group agrees on one key
   * so that the same PVO is valid on every member node. A nonzero `at_pvo` places the buffer
   * at exactly that PVO (its key, table and TCEs), or fails if those TCEs are taken: a group
   * member maps its landing area where the other members have theirs.
   */
  Result<Registration> Register(uint32_t job, const host::PageTable& pages, uint64_t vaddr,
                                uint64_t len, uint32_t fixed_key = 0, uint64_t at_pvo = 0);
  /** Invalidates the registration's TCEs (flags = 0) and frees them for reuse. */
  Status Deregister(const Registration& reg);

  /** Where table t's entries live (empty for an unused table index). */
  host::HostRegion table_region(uint32_t t) const;
  /** log2 of the page size table t maps; 0 for an unused table index. */
  uint32_t page_shift(uint32_t t) const;
  /** JOBID owning table t (kNoJob when free or unused). */
  uint32_t owner(uint32_t t) const;
  /** Tables set up (the rest of the abi::kTceTables indices are unused). */
  uint32_t table_count() const { return static_cast<uint32_t>(tables_.size()); }

 private:
  struct Table {
    host::HostRegion region;
    uint32_t entries = 0;
    uint32_t page_shift = 0;
    uint32_t owner = abi::kNoJob;
    /** Job slot the table belongs to, kShared (64 KiB, handed out on demand) or kUnassigned. */
    uint32_t slot = 0;
    /** TCEs held by a registration: empty until the first one (a node's tables are many and
     *  most are never used), then one flag per entry. */
    std::vector<bool> used;
    bool Used(uint64_t i) const { return i < used.size() && used[i]; }
  };
  static constexpr uint32_t kShared = ~0u;
  static constexpr uint32_t kUnassigned = ~0u - 1;

  TceTables(DeviceAccess& memory, const TceConfig& config);
  /** Descriptor of table index t as the adapter reads it. */
  abi::TceTableDesc Desc(uint32_t t) const;
  void WriteDesc(DeviceAccess& adapter, uint32_t t, const abi::TceTableDesc& desc);
  /** Sets table t's owner and tells every attached adapter. */
  void SetOwner(uint32_t t, uint32_t job);
  void WriteTce(uint32_t t, uint32_t index, const abi::TceEntry& tce);
  /** Register's placement at a given PVO (checks the table and that its TCEs are free). */
  Result<Registration> RegisterAt(const std::string& what, uint32_t job, uint64_t pvo,
                                  uint64_t in_page, uint64_t page,
                                  const std::vector<uint64_t>& reals, uint64_t len);
  /** Writes the TCEs of a registration at `pvo` (whose TCEs are free) and records it. */
  Registration Place(uint32_t job, uint64_t pvo, uint64_t page, const std::vector<uint64_t>& reals,
                     uint64_t len);
  abi::TceEntry ReadTce(uint32_t t, uint32_t index) const;
  /** First index of `count` free consecutive TCEs in table t, or -1. */
  int64_t FindRun(uint32_t t, uint32_t count) const;
  /** A nonzero 17-bit PVO key. */
  uint32_t NextKey();

  DeviceAccess& memory_;
  TceConfig config_;
  Rng keys_;
  std::vector<Table> tables_;
  /** Job holding each slot (kNoJob: free). */
  std::vector<uint32_t> slot_job_;
  std::vector<DeviceAccess*> adapters_;
  /** Live registrations by (table, first TCE). */
  std::map<std::pair<uint32_t, uint32_t>, Registration> live_;
};

}  // namespace nicsim::driver
