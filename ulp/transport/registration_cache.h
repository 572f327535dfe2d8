// SPDX-License-Identifier: Apache-2.0
// Lazy deregistration: buffers are registered for RDMA by 16 MiB fragments of the task's
// address space and the registrations are kept for reuse. Each 4 GiB segment of a 64-bit
// space has a 256-bit vector of fragments that hold a registration (a 32-bit space is one
// such segment); a fragment has a use count (transfers in progress) and an idle count that a
// timer tick once a simulated second raises for every unused fragment, and is deregistered
// when it has been idle too long. The tick runs while some fragment is unused, as a
// background timer (it keeps no run alive). Before a registration is reused, the real pages
// behind it are checked against the current page tables; if the memory changed (a segment
// detached and another attached at the same address) the fragment is registered again.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/counter_table.h"
#include "base/life_token.h"
#include "base/status.h"
#include "hal/port.h"
#include "hal/task_host.h"

namespace nicsim::ulp {

class RegistrationCache {
 public:
  static constexpr uint32_t kFragmentShift = 24;  // 16 MiB
  static constexpr uint32_t kSegmentShift = 32;   // 4 GiB
  static constexpr uint32_t kFragmentsPerSegment = 1u << (kSegmentShift - kFragmentShift);

  /** `idle_limit_s`: seconds a fragment may stay unused before it is deregistered. */
  RegistrationCache(hal::TaskHost& host, uint32_t idle_limit_s)
      : host_(host), idle_limit_s_(idle_limit_s) {}
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  /** A piece of a buffer inside one fragment, and the PVO of its first byte. */
  struct Span {
    uint64_t vaddr;
    uint64_t len;
    uint64_t pvo;
  };
  /**
   * PVOs for [vaddr, vaddr + len), one span per fragment it touches; each fragment's use
   * count goes up until Release. Registers what is not registered yet.
   */
  Result<std::vector<Span>> Acquire(uint64_t vaddr, uint64_t len);
  /** The transfer over [vaddr, vaddr + len) has ended. */
  void Release(uint64_t vaddr, uint64_t len);
  /** [vaddr, vaddr + len) is about to be unmapped: every idle registration overlapping it is
   *  deregistered now (one in use is left: a transfer still needs it). */
  void Forget(uint64_t vaddr, uint64_t len);
  /** Tick period of the idle counts: one simulated second, on whole seconds of the clock. */
  static constexpr uint64_t kTickPs = 1'000'000'000'000ull;

  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    /** Registrations redone because the memory behind them changed. */
    uint64_t remaps = 0;
    /** Fragments deregistered after idling. */
    uint64_t evictions = 0;
    /** Registrations dropped because their memory was about to be unmapped (Forget). */
    uint64_t forgotten = 0;
    /** Aging ticks run (each raised the idle count of every unused fragment). */
    uint64_t ticks = 0;

    /** Every counter with its stats.json name and meaning. */
    static constexpr auto Fields() {
      using S = Stats;
      return std::array<CounterField<S>, 6>{{
          {"hits", &S::hits, "pieces of a buffer (one per 16 MiB fragment) found registered"},
          {"misses", &S::misses,
           "pieces of a buffer registered on use (first use, or again: remaps)"},
          {"remaps", &S::remaps,
           "registrations redone because the memory behind them changed (counted in misses too)"},
          {"evictions", &S::evictions,
           "fragments deregistered by the aging tick after idling the task's limit of seconds"},
          {"forgotten", &S::forgotten,
           "idle registrations dropped because their memory was about to be unmapped"},
          {"ticks", &S::ticks,
           "aging ticks run, once a simulated second while some fragment was unused (a "
           "background timer: it neither keeps a run going nor moves its end)"},
      }};
    }
    /** Adds another cache's figures. */
    Stats& operator+=(const Stats& o) { return AddCounters(*this, o); }
  };
  const Stats& stats() const { return stats_; }
  /** Fragments holding a registration now. */
  size_t registered_fragments() const;
  /** True if the fragment holding `vaddr` is registered (its bit is set). */
  bool IsRegistered(uint64_t vaddr) const;

 private:
  /** One registration: a mapped run [begin, end) of one page size inside a fragment. */
  struct Run {
    driver::Registration reg;
    uint64_t begin = 0;
    uint64_t end = 0;
    std::vector<uint64_t> real_pages;
    uint32_t page_shift = 0;
    uint32_t uses = 0;
    uint32_t idle_s = 0;
  };
  /** A fragment's registrations (separate mappings inside one fragment each have a run). */
  using Fragment = std::vector<std::unique_ptr<Run>>;
  struct Segment {
    std::bitset<kFragmentsPerSegment> registered;
    std::array<Fragment, kFragmentsPerSegment> fragments;
  };
  /** Registers the mapped run of one page size around [vaddr, vaddr + len) in its fragment. */
  Result<std::unique_ptr<Run>> RegisterRun(uint64_t vaddr, uint64_t len);
  /** True if the real pages behind the run are the ones it registered. */
  bool StillMapped(const Run& r);
  /** Calls fn(segment, fragment index, at, piece_end) for each piece of [vaddr, vaddr + len)
   *  (at least one byte) inside one fragment, where that fragment's segment exists. */
  template <typename Fn>
  void ForEachPiece(uint64_t vaddr, uint64_t len, Fn fn);
  /** Deregisters run `i` of the fragment. */
  void Drop(Segment& seg, uint32_t index, size_t i);
  /** Schedules the next tick on the next whole second, unless one is pending. */
  void ArmTick();
  /** One tick: every unused run's idle count goes up; those idle too long are dropped. */
  void Tick();

  hal::TaskHost& host_;
  uint32_t idle_limit_s_;
  std::unordered_map<uint64_t, Segment> segments_;
  bool tick_pending_ = false;
  Stats stats_;
  /** Last member: a pending tick finds the cache gone. */
  LifeToken life_;
};

}  // namespace nicsim::ulp
