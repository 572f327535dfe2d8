// SPDX-License-Identifier: Apache-2.0
// Ranks on user-level contexts (mpi.scheduler=contexts): glibc's makecontext/swapcontext, each
// rank on its own mmap'd stack with a guard page, all on the event loop's OS thread.
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "base/check.h"
#include "base/sanitizers.h"
#include "sim/cluster/rank_scheduler.h"
#include "sim/cluster/stack_guard.h"

#if NICSIM_ADDRESS_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

namespace nicsim::sim {
namespace {

/** Tells AddressSanitizer the stack is about to change to [bottom, bottom + size) (no-op
 *  without it); `fake` keeps the leaving context's fake stack, null when it ends. */
void StartSwitch(void** fake, const void* bottom, size_t size) {
#if NICSIM_ADDRESS_SANITIZER
  __sanitizer_start_switch_fiber(fake, bottom, size);
#else
  static_cast<void>(fake), static_cast<void>(bottom), static_cast<void>(size);
#endif
}

/** Tells AddressSanitizer the switch is done; gives the stack switched from, if asked. */
void FinishSwitch(void* fake, const void** from_bottom, size_t* from_size) {
#if NICSIM_ADDRESS_SANITIZER
  __sanitizer_finish_switch_fiber(fake, from_bottom, from_size);
#else
  static_cast<void>(fake), static_cast<void>(from_bottom), static_cast<void>(from_size);
#endif
}

class ContextRankScheduler final : public RankScheduler {
 public:
  explicit ContextRankScheduler(uint32_t ranks) {
    for (uint32_t r = 0; r < ranks; ++r) slots_.push_back(std::make_unique<Slot>());
  }
  ~ContextRankScheduler() override {
    for (auto& slot : slots_) {
      NICSIM_CHECK(!slot->running, "a rank context is destroyed while its program runs");
      if (slot->map == nullptr) continue;
      UnwatchStackGuard(slot->map);
      munmap(slot->map, slot->map_bytes);
    }
  }

  void Start(uint32_t rank, Entry entry) override {
    Slot& slot = *slots_[rank];
    Reap(rank);
    if (slot.map == nullptr) MapStack(slot, rank);
    slot.entry = std::move(entry);
    slot.owner = this;
    slot.running = true;
    NICSIM_CHECK(getcontext(&slot.context) == 0, "getcontext failed for rank %u", rank);
    slot.context.uc_stack.ss_sp = const_cast<void*>(StackBottom(slot));
    slot.context.uc_stack.ss_size = kRankStackBytes;
    // When the entry returns, the context continues where the last Resume switched from.
    slot.context.uc_link = &loop_;
    // makecontext passes int arguments: the slot's address travels as two 32-bit halves.
    const auto address = reinterpret_cast<uintptr_t>(&slot);
    makecontext(&slot.context, reinterpret_cast<void (*)()>(&Trampoline), 2,
                static_cast<uint32_t>(address >> 32), static_cast<uint32_t>(address));
  }

  void Resume(uint32_t rank) override {
    Slot& slot = *slots_[rank];
    NICSIM_CHECK(slot.running, "rank %u is resumed but has no program running", rank);
    StartSwitch(&loop_fake_, StackBottom(slot), kRankStackBytes);
    swapcontext(&loop_, &slot.context);
    FinishSwitch(loop_fake_, nullptr, nullptr);
  }

  void Yield(uint32_t rank) override {
    Slot& slot = *slots_[rank];
    StartSwitch(&slot.fake, loop_bottom_, loop_size_);
    swapcontext(&slot.context, &loop_);
    FinishSwitch(slot.fake, &loop_bottom_, &loop_size_);
  }

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
    ContextRankScheduler* owner = nullptr;
    /** AddressSanitizer's fake stack of the rank while it is switched out. */
    void* fake = nullptr;
  };

  static const void* StackBottom(const Slot& slot) {
    return static_cast<const char*>(slot.map) + slot.map_bytes - kRankStackBytes;
  }

  static void Trampoline(uint32_t high, uint32_t low) {
    auto* slot = reinterpret_cast<Slot*>((uintptr_t{high} << 32) | low);
    ContextRankScheduler& self = *slot->owner;
    FinishSwitch(nullptr, &self.loop_bottom_, &self.loop_size_);
    slot->entry();  // does not throw: the job's entry catches the rank's unwinding itself
    slot->running = false;
    // The context ends: uc_link continues the loop.
    StartSwitch(nullptr, self.loop_bottom_, self.loop_size_);
  }

  static void MapStack(Slot& slot, uint32_t rank) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    slot.map_bytes = kRankStackBytes + page;
    // MAP_NORESERVE: 4,096 ranks reserve 1 GiB of address space but cost only touched pages.
    slot.map = mmap(nullptr, slot.map_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    NICSIM_CHECK(slot.map != MAP_FAILED, "cannot map a %zu-byte rank stack", slot.map_bytes);
    // The stack grows down: its lowest page faults instead of overwriting another mapping.
    NICSIM_CHECK(mprotect(slot.map, page, PROT_NONE) == 0, "cannot protect a rank stack's guard");
    WatchStackGuard(slot.map, page, rank);
  }

  /** Where the event loop continues when a rank yields or returns. */
  ucontext_t loop_;
  /** For AddressSanitizer: the loop's fake stack and its real stack while a rank runs. */
  void* loop_fake_ = nullptr;
  const void* loop_bottom_ = nullptr;
  size_t loop_size_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace

std::unique_ptr<RankScheduler> MakeContextRankScheduler(uint32_t ranks) {
  return std::make_unique<ContextRankScheduler>(ranks);
}

}  // namespace nicsim::sim
