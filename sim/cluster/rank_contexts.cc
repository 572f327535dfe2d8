// SPDX-License-Identifier: Apache-2.0
// Ranks on user-level contexts (mpi.scheduler=contexts): glibc's makecontext/swapcontext, each
// rank on its own mmap'd stack with a guard page, all on the event loop's OS thread.
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "base/check.h"
#include "sim/cluster/rank_scheduler.h"

namespace nicsim::sim {
namespace {

class ContextRankScheduler final : public RankScheduler {
 public:
  explicit ContextRankScheduler(uint32_t ranks) {
    for (uint32_t r = 0; r < ranks; ++r) slots_.push_back(std::make_unique<Slot>());
  }
  ~ContextRankScheduler() override {
    for (auto& slot : slots_) {
      NICSIM_CHECK(!slot->running, "a rank context is destroyed while its program runs");
      if (slot->map != nullptr) munmap(slot->map, slot->map_bytes);
    }
  }

  void Start(uint32_t rank, Entry entry) override {
    Slot& slot = *slots_[rank];
    Reap(rank);
    if (slot.map == nullptr) MapStack(slot);
    slot.entry = std::move(entry);
    slot.running = true;
    NICSIM_CHECK(getcontext(&slot.context) == 0, "getcontext failed for rank %u", rank);
    slot.context.uc_stack.ss_sp = static_cast<char*>(slot.map) + slot.map_bytes - kRankStackBytes;
    slot.context.uc_stack.ss_size = kRankStackBytes;
    // When the entry returns, the context continues where the last Resume switched from.
    slot.context.uc_link = &loop_;
    // makecontext passes int arguments: the slot's address travels as two 32-bit halves.
    const auto address = reinterpret_cast<uintptr_t>(&slot);
    makecontext(&slot.context, reinterpret_cast<void (*)()>(&Trampoline), 2,
                static_cast<uint32_t>(address >> 32), static_cast<uint32_t>(address));
  }

  void Resume(uint32_t rank) override {
    NICSIM_CHECK(slots_[rank]->running, "rank %u is resumed but has no program running", rank);
    swapcontext(&loop_, &slots_[rank]->context);
  }

  void Yield(uint32_t rank) override { swapcontext(&slots_[rank]->context, &loop_); }

  void Reap(uint32_t rank) override {
    Slot& slot = *slots_[rank];
    NICSIM_CHECK(!slot.running, "rank %u is reaped while its program runs", rank);
    slot.entry = nullptr;
  }

 private:
  struct Slot {
    ucontext_t context;
    Entry entry;
    /** The mapping: a guard page, then kRankStackBytes of stack (reused by later runs). */
    void* map = nullptr;
    size_t map_bytes = 0;
    /** Between Start and the entry's return. */
    bool running = false;
  };

  static void Trampoline(uint32_t high, uint32_t low) {
    auto* slot = reinterpret_cast<Slot*>((uintptr_t{high} << 32) | low);
    slot->entry();  // does not throw: the job's entry catches the rank's unwinding itself
    slot->running = false;
  }

  static void MapStack(Slot& slot) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    slot.map_bytes = kRankStackBytes + page;
    // MAP_NORESERVE: 4,096 ranks reserve 1 GiB of address space but cost only touched pages.
    slot.map = mmap(nullptr, slot.map_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    NICSIM_CHECK(slot.map != MAP_FAILED, "cannot map a %zu-byte rank stack", slot.map_bytes);
    // The stack grows down: its lowest page faults instead of overwriting another mapping.
    NICSIM_CHECK(mprotect(slot.map, page, PROT_NONE) == 0, "cannot protect a rank stack's guard");
  }

  /** Where the event loop continues when a rank yields or returns. */
  ucontext_t loop_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace

std::unique_ptr<RankScheduler> MakeContextRankScheduler(uint32_t ranks) {
  return std::make_unique<ContextRankScheduler>(ranks);
}

}  // namespace nicsim::sim
