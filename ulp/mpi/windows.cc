// SPDX-License-Identifier: Apache-2.0
// One-sided communication's calls: windows made and freed collectively, operations handed to
// OneSided with their target as a world rank, and the fence that ends an epoch.
#include <cstring>
#include <functional>
#include <vector>

#include "base/check.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {
namespace {

/** The world rank of `rank` of the window's communicator, which `call` names. */
int WorldOf(int rank, const Win& win, const char* call) {
  NICSIM_CHECK(rank >= 0 && rank < win.comm.size(), "MPI %s: rank %d of %d", call, rank,
               win.comm.size());
  return win.comm.group->World(rank);
}

/** The world ranks of `ranks` of the window's communicator. */
std::vector<int> WorldRanks(const std::vector<int>& ranks, const Win& win, const char* call) {
  std::vector<int> world;
  for (int r : ranks) world.push_back(WorldOf(r, win, call));
  return world;
}

}  // namespace

Win Mpi::WinCreate(void* base, size_t bytes, const Comm& comm) {
  Win win;
  win.comm = comm;
  win.context = FreshContextAmong(comm);
  one_sided_.Expose(win.context, static_cast<uint8_t*>(base), bytes);
  Publish(win);
  return win;
}

void Mpi::Publish(const Win& win) {
  // Every member learns where the others' memory may be read directly; and being a collective
  // exchange, no member starts an operation before every member exposes its memory.
  const OneSided::Published mine = one_sided_.PublishedHere(win.context);
  std::vector<OneSided::Published> all(static_cast<size_t>(win.comm.size()));
  Allgather(&mine, sizeof(mine), kByteType, all.data(), win.comm);
  for (int r = 0; r < win.comm.size(); ++r) {
    one_sided_.Learn(win.context, win.comm.group->World(r), all[static_cast<size_t>(r)]);
  }
}

Win Mpi::WinAllocate(size_t bytes, const Comm& comm, void** base) {
  Win win;
  win.comm = comm;
  win.context = FreshContextAmong(comm);
  void* at = bytes > 0 && bytes <= kAllocMemMaxBytes ? AllocMem(bytes) : nullptr;
  if (at != nullptr) {
    std::memset(at, 0, bytes);
    one_sided_.Expose(win.context, static_cast<uint8_t*>(at), bytes);
  } else {
    at = one_sided_.ExposeOwned(win.context, bytes);
  }
  *base = at;
  Publish(win);
  return win;
}

void Mpi::WinAttach(const Win& win, uint64_t disp, void* base, size_t bytes) {
  one_sided_.Attach(win.context, disp, static_cast<uint8_t*>(base), bytes);
}

void Mpi::WinDetach(const Win& win, uint64_t disp) { one_sided_.Detach(win.context, disp); }

void Mpi::WinFree(const Win& win, const std::function<void()>& last) {
  Fence(win);
  if (last) last();
  one_sided_.Forget(win.context);
}

void Mpi::Put(const void* buf, size_t count, const Datatype& type, int target, uint64_t disp,
              const Win& win) {
  one_sided_.Put(buf, count, type, WorldOf(target, win, "put"), disp, win.context);
  SpendCopyTime();
}

void Mpi::Get(void* buf, size_t count, const Datatype& type, int target, uint64_t disp,
              const Win& win) {
  one_sided_.Get(buf, count, type, WorldOf(target, win, "get"), disp, win.context);
}

void Mpi::Accumulate(const void* buf, size_t count, const Datatype& type, Op op, int target,
                     uint64_t disp, const Win& win, OneSided::Update update) {
  one_sided_.Accumulate(buf, count, type, op, WorldOf(target, win, "accumulate"), disp, win.context,
                        update);
  SpendCopyTime();
}

void Mpi::GetAccumulate(const void* buf, void* result, size_t count, const Datatype& type, Op op,
                        int target, uint64_t disp, const Win& win, OneSided::Update update) {
  one_sided_.FetchAccumulate(buf, nullptr, result, count, type, update, op,
                             WorldOf(target, win, "get-accumulate"), disp, win.context);
  SpendCopyTime();
}

void Mpi::PutBlocks(const uint8_t* packed, const OneSided::Blocks& blocks, int target,
                    const Win& win) {
  one_sided_.PutBlocks(packed, blocks, WorldOf(target, win, "put"), win.context);
  SpendCopyTime();
}

void Mpi::GetBlocks(uint8_t* packed, const OneSided::Blocks& blocks, int target, const Win& win) {
  one_sided_.GetBlocks(packed, blocks, WorldOf(target, win, "get"), win.context);
}

void Mpi::AccumulateBlocks(const uint8_t* packed, uint8_t* result, const OneSided::Blocks& blocks,
                           Base base, OneSided::Update update, Op op, int target, const Win& win) {
  one_sided_.AccumulateBlocks(packed, result, blocks, base, update, op,
                              WorldOf(target, win, "accumulate"), win.context);
  SpendCopyTime();
}

void Mpi::FetchAndOp(const void* buf, void* result, const Datatype& type, Op op, int target,
                     uint64_t disp, const Win& win) {
  GetAccumulate(buf, result, 1, type, op, target, disp, win);
}

void Mpi::CompareAndSwap(const void* buf, const void* compare, void* result, const Datatype& type,
                         int target, uint64_t disp, const Win& win) {
  one_sided_.FetchAccumulate(buf, compare, result, 1, type, OneSided::Update::kCompareSwap,
                             Op::kSum, WorldOf(target, win, "compare-and-swap"), disp, win.context);
  SpendCopyTime();
}

void Mpi::WinLock(LockType type, int target, const Win& win) {
  const int world = WorldOf(target, win, "lock");
  one_sided_.Lock(win.context, world, type == LockType::kExclusive);
  blocker_.BlockUntil([&] { return one_sided_.Granted(win.context, world); });
}

void Mpi::WinLockAll(const Win& win) {
  for (int r = 0; r < win.comm.size(); ++r) {
    one_sided_.Lock(win.context, win.comm.group->World(r), /*exclusive=*/false);
  }
  blocker_.BlockUntil([&] {
    for (int r = 0; r < win.comm.size(); ++r) {
      if (!one_sided_.Granted(win.context, win.comm.group->World(r))) return false;
    }
    return true;
  });
}

void Mpi::EndPassive(const std::vector<int>& targets, const Win& win, bool release) {
  const std::vector<int> world = WorldRanks(targets, win, "unlock");
  // This rank's own operations first (gets' bytes in place, origin buffers free), then each
  // target confirms it applied the puts and accumulates it was sent.
  blocker_.BlockUntil([&] { return one_sided_.Outstanding(win.context) == 0; });
  std::vector<int> asked;
  for (int w : world) {
    const uint64_t issued = one_sided_.TakeIssued(win.context, w);
    // A flush of a target sent no put or accumulate since the last: the wait above was all.
    if (!release && issued == 0) continue;
    one_sided_.Unlock(win.context, w, issued, release);
    asked.push_back(w);
  }
  blocker_.BlockUntil([&] {
    for (int w : asked) {
      if (!one_sided_.Answered(win.context, w)) return false;
    }
    return true;
  });
}

void Mpi::WinUnlock(int target, const Win& win) { EndPassive({target}, win, /*release=*/true); }

void Mpi::WinFlush(int target, const Win& win) { EndPassive({target}, win, /*release=*/false); }

namespace {

/** Every rank of `win`'s communicator. */
std::vector<int> AllRanks(const Win& win) {
  std::vector<int> all(static_cast<size_t>(win.comm.size()));
  for (int r = 0; r < win.comm.size(); ++r) all[static_cast<size_t>(r)] = r;
  return all;
}

}  // namespace

void Mpi::WinUnlockAll(const Win& win) { EndPassive(AllRanks(win), win, /*release=*/true); }

void Mpi::WinFlushAll(const Win& win) { EndPassive(AllRanks(win), win, /*release=*/false); }

void Mpi::WinPost(const std::vector<int>& origins, const Win& win) {
  one_sided_.Post(win.context, WorldRanks(origins, win, "post"));
}

void Mpi::WinStart(const std::vector<int>& targets, const Win& win) {
  const std::vector<int> world = WorldRanks(targets, win, "start");
  blocker_.BlockUntil([&] { return one_sided_.PostedBy(win.context, world); });
  one_sided_.Start(win.context, world);
}

void Mpi::WinComplete(const Win& win) {
  blocker_.BlockUntil([&] { return one_sided_.Outstanding(win.context) == 0; });
  one_sided_.Complete(win.context);
}

void Mpi::WinWait(const Win& win) {
  blocker_.BlockUntil([&] { return one_sided_.CompletedBy(win.context); });
}

bool Mpi::WinTest(const Win& win) { return one_sided_.CompletedBy(win.context); }

void Mpi::Fence(const Win& win) {
  // This rank's own operations first: gets' bytes in place, origin buffers free.
  blocker_.BlockUntil([&] { return one_sided_.Outstanding(win.context) == 0; });
  // Every member learns how many puts and accumulates target it, and waits until that many
  // are applied: a transport may report a message delivered while it still waits in order.
  const Comm& comm = win.comm;
  std::vector<int64_t> issued(static_cast<size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    issued[static_cast<size_t>(r)] =
        static_cast<int64_t>(one_sided_.TakeIssued(win.context, comm.group->World(r)));
  }
  int64_t expected = 0;
  ReduceScatter(reinterpret_cast<const uint8_t*>(issued.data()),
                reinterpret_cast<uint8_t*>(&expected),
                std::vector<size_t>(static_cast<size_t>(comm.size()), sizeof(int64_t)),
                Combiner::Of(Op::kSum, Base::kInt64), comm);
  const auto want = static_cast<uint64_t>(expected);
  blocker_.BlockUntil([&] { return one_sided_.Applied(win.context) >= want; });
  one_sided_.ConsumeApplied(win.context, want);
  // No member starts the next epoch before every target has applied this one.
  Barrier(comm);
}

}  // namespace nicsim::mpi
