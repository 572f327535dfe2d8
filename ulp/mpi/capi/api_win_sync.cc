// SPDX-License-Identifier: Apache-2.0
// MPI's one-sided epochs: fence, passive target (lock, unlock, flush), generalised active
// target (post, start, complete, wait, test) and MPI_Win_sync. Each runs on the simulator;
// its reply brings the bytes of the gets and fetching accumulates it completed, which land in
// the program's buffers here. Assertions (MPI_MODE_*) are hints: every epoch does all of its
// work whatever they promise.
#include <string>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/rma.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::WinSync;
using nicsim::mpi::wire::Writer;

namespace nicsim::mpi::capi {

int SyncWindow(MPI_Win win, WinSync what, int target, bool exclusive, const std::vector<int>& ranks,
               const char* call, int* done) {
  Writer args;
  args.Put<int32_t>(win).Put<uint8_t>(static_cast<uint8_t>(what)).Put<int32_t>(target);
  args.Put<uint8_t>(exclusive).Put<uint32_t>(static_cast<uint32_t>(ranks.size()));
  for (int r : ranks) args.Put<int32_t>(r);
  Reply r = C().Call(Call::kWinSync, args);
  if (r.code != MPI_SUCCESS) return C().WinError(win, r.code, call, "");
  const auto flag = r.results.Get<uint8_t>();
  if (done != nullptr) *done = flag;
  const auto k = r.results.Get<uint32_t>();
  for (uint32_t i = 0; i < k && !r.results.failed(); ++i) {
    const auto id = r.results.Get<uint64_t>();
    const auto [data, n] = r.results.Blob();
    auto it = C().pending_results.find(id);
    if (it == C().pending_results.end()) continue;
    const PendingResult& p = it->second;
    Unpack(data, n, p.buf, static_cast<size_t>(p.count), *p.type);
    C().pending_results.erase(it);
  }
  return MPI_SUCCESS;
}

void CompleteRmaRequest(RequestInfo& r) {
  if (r.rma_win == MPI_WIN_NULL) return;
  const MPI_Win win = r.rma_win;
  r.rma_win = MPI_WIN_NULL;
  // A window freed first had every operation on it completed by then.
  if (C().Win(win) != nullptr) {
    SyncWindow(win, WinSync::kRequest, r.rma_target, false, {}, "MPI_Wait");
  }
}

}  // namespace nicsim::mpi::capi

namespace {

/** A target rank of the window, or MPI_PROC_NULL (`*skip`: nothing to do). */
int CheckTarget(MPI_Win win, int rank, const char* call, bool* skip) {
  const auto members = static_cast<int>(C().Win(win)->members.size());
  *skip = rank == MPI_PROC_NULL;
  if (*skip || (rank >= 0 && rank < members)) return MPI_SUCCESS;
  return C().WinError(win, MPI_ERR_RANK, call,
                      "rank " + std::to_string(rank) + " of " + std::to_string(members));
}

/** The window's ranks of the members of `group` (each must belong to the window). */
int RanksOf(MPI_Win win, MPI_Group group, const char* call, std::vector<int>* ranks) {
  const GroupInfo* g = C().Group(group);
  if (g == nullptr) return C().WinError(win, MPI_ERR_GROUP, call, "invalid group");
  for (int world : g->members) {
    const int rank = RankIn(C().Win(win)->members, world);
    if (rank == MPI_UNDEFINED) {
      return C().WinError(win, MPI_ERR_GROUP, call,
                          "world rank " + std::to_string(world) + " is not in the window");
    }
    ranks->push_back(rank);
  }
  return MPI_SUCCESS;
}

/** A call on `win` that names one target (unlock, flush ...). */
int AtTarget(MPI_Win win, int rank, WinSync what, const char* call) {
  NICSIM_MPI_TRY(CheckWin(win, call));
  bool skip = false;
  NICSIM_MPI_TRY(CheckTarget(win, rank, call, &skip));
  if (skip) return MPI_SUCCESS;
  return SyncWindow(win, what, rank, false, {}, call);
}

/** A call on `win` that names no target (fence, unlock_all ...). */
int OnWindow(MPI_Win win, WinSync what, const char* call) {
  NICSIM_MPI_TRY(CheckWin(win, call));
  return SyncWindow(win, what, -1, false, {}, call);
}

/** Post and start: the window's ranks of `group`. */
int WithGroup(MPI_Win win, MPI_Group group, WinSync what, const char* call) {
  NICSIM_MPI_TRY(CheckWin(win, call));
  std::vector<int> ranks;
  NICSIM_MPI_TRY(RanksOf(win, group, call, &ranks));
  return SyncWindow(win, what, -1, false, ranks, call);
}

}  // namespace

extern "C" {

int MPI_Win_fence(int, MPI_Win win) { return OnWindow(win, WinSync::kFence, "MPI_Win_fence"); }

int MPI_Win_lock(int lock_type, int rank, int, MPI_Win win) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_lock"));
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED) {
    return C().WinError(win, MPI_ERR_LOCKTYPE, "MPI_Win_lock",
                        "lock type " + std::to_string(lock_type));
  }
  bool skip = false;
  NICSIM_MPI_TRY(CheckTarget(win, rank, "MPI_Win_lock", &skip));
  if (skip) return MPI_SUCCESS;
  return SyncWindow(win, WinSync::kLock, rank, lock_type == MPI_LOCK_EXCLUSIVE, {}, "MPI_Win_lock");
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  return AtTarget(win, rank, WinSync::kUnlock, "MPI_Win_unlock");
}

int MPI_Win_lock_all(int, MPI_Win win) {
  return OnWindow(win, WinSync::kLockAll, "MPI_Win_lock_all");
}

int MPI_Win_unlock_all(MPI_Win win) {
  return OnWindow(win, WinSync::kUnlockAll, "MPI_Win_unlock_all");
}

int MPI_Win_flush(int rank, MPI_Win win) {
  return AtTarget(win, rank, WinSync::kFlush, "MPI_Win_flush");
}

int MPI_Win_flush_all(MPI_Win win) {
  return OnWindow(win, WinSync::kFlushAll, "MPI_Win_flush_all");
}

// Local completion is not told apart from completion at the target: a local flush waits for
// both, which MPI allows.
int MPI_Win_flush_local(int rank, MPI_Win win) {
  return AtTarget(win, rank, WinSync::kFlush, "MPI_Win_flush_local");
}

int MPI_Win_flush_local_all(MPI_Win win) {
  return OnWindow(win, WinSync::kFlushAll, "MPI_Win_flush_local_all");
}

int MPI_Win_sync(MPI_Win win) { return OnWindow(win, WinSync::kSync, "MPI_Win_sync"); }

int MPI_Win_post(MPI_Group group, int, MPI_Win win) {
  return WithGroup(win, group, WinSync::kPost, "MPI_Win_post");
}

int MPI_Win_start(MPI_Group group, int, MPI_Win win) {
  return WithGroup(win, group, WinSync::kStart, "MPI_Win_start");
}

int MPI_Win_complete(MPI_Win win) { return OnWindow(win, WinSync::kComplete, "MPI_Win_complete"); }

int MPI_Win_wait(MPI_Win win) { return OnWindow(win, WinSync::kWait, "MPI_Win_wait"); }

int MPI_Win_test(MPI_Win win, int* flag) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_test"));
  if (flag == nullptr) return C().WinError(win, MPI_ERR_ARG, "MPI_Win_test", "null flag");
  return SyncWindow(win, WinSync::kTest, -1, false, {}, "MPI_Win_test", flag);
}

}  // extern "C"
