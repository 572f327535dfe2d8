// SPDX-License-Identifier: Apache-2.0
// Argument checks shared by the C binding's calls: each returns MPI_SUCCESS, or the error
// class MPI defines for the argument, reported through the communicator's error handler.
#pragma once

#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/limits.h"

namespace nicsim::mpi::capi {

/** Returns from the calling function when `expr` (a check) did not give MPI_SUCCESS. */
#define NICSIM_MPI_TRY(expr)                              \
  do {                                                    \
    const int nicsim_code_ = (expr);                      \
    if (nicsim_code_ != MPI_SUCCESS) return nicsim_code_; \
  } while (0)

inline int CheckComm(MPI_Comm comm, const char* call) {
  if (Client::Get().Comm(comm) != nullptr) return MPI_SUCCESS;
  return Client::Get().Error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator");
}

/** A communicator a collective other than MPI_Barrier may run on: an intracommunicator. */
inline int CheckIntracomm(MPI_Comm comm, const char* call) {
  const CommInfo* c = Client::Get().Comm(comm);
  if (c == nullptr) {
    return Client::Get().Error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator");
  }
  if (!c->inter) return MPI_SUCCESS;
  return Client::Get().Error(comm, MPI_ERR_COMM, call,
                             "collectives over an intercommunicator are not supported");
}

/** `count` items of `type`: a known, committed type and a count that is not negative. */
inline int CheckData(MPI_Comm comm, int count, MPI_Datatype type, const char* call,
                     const TypeInfo** info) {
  Client& c = Client::Get();
  if (count < 0) return c.Error(comm, MPI_ERR_COUNT, call, "negative count");
  *info = c.types.Usable(type);
  if (*info == nullptr) return c.Error(comm, MPI_ERR_TYPE, call, "invalid or uncommitted datatype");
  return MPI_SUCCESS;
}

/**
 * A buffer `count` items of `t` can be at: none of its bytes may lie in the first or the
 * last page of the address space, where MPI_BOTTOM (0) and MPI_IN_PLACE (-1) point and no
 * program's data is (a type with absolute displacements from MPI_BOTTOM passes).
 */
inline int CheckBuffer(MPI_Comm comm, const void* buf, int count, const TypeInfo& t,
                       const char* call) {
  if (count <= 0 || t.size == 0) return MPI_SUCCESS;
  constexpr uintptr_t kPage = 4096;
  const auto base = reinterpret_cast<uintptr_t>(buf);
  const uintptr_t first = base + static_cast<uintptr_t>(t.true_lb);
  if (first >= kPage && first <= ~uintptr_t{0} - kPage) return MPI_SUCCESS;
  return Client::Get().Error(comm, MPI_ERR_BUFFER, call,
                             buf == MPI_IN_PLACE ? "MPI_IN_PLACE is not allowed here"
                                                 : "the buffer is not a valid address");
}

/** A peer rank: in the communicator, or MPI_PROC_NULL, or (if `any`) MPI_ANY_SOURCE. */
inline int CheckPeer(MPI_Comm comm, int rank, bool any, const char* call) {
  const int size = Client::Get().Comm(comm)->peer_size();
  if ((rank >= 0 && rank < size) || rank == MPI_PROC_NULL || (any && rank == MPI_ANY_SOURCE)) {
    return MPI_SUCCESS;
  }
  return Client::Get().Error(comm, MPI_ERR_RANK, call,
                             "rank " + std::to_string(rank) + " of " + std::to_string(size));
}

inline int CheckTag(MPI_Comm comm, int tag, bool any, const char* call) {
  if ((tag >= 0 && tag <= kTagUb) || (any && tag == MPI_ANY_TAG)) return MPI_SUCCESS;
  return Client::Get().Error(comm, MPI_ERR_TAG, call, "tag " + std::to_string(tag));
}

inline int CheckRoot(MPI_Comm comm, int root, const char* call) {
  const int size = Client::Get().Comm(comm)->size;
  if (root >= 0 && root < size) return MPI_SUCCESS;
  return Client::Get().Error(comm, MPI_ERR_ROOT, call,
                             "root " + std::to_string(root) + " of " + std::to_string(size));
}

/** A collective's outcome: the simulator fails a rank's call when a message of it had another
 *  length than the rank's count asks for, which only counts that differ between ranks give. */
inline int CheckCountsAgreed(const Reply& r, MPI_Comm comm, const char* call) {
  if (r.code == MPI_SUCCESS) return MPI_SUCCESS;
  return Client::Get().Error(
      comm, r.code, call,
      r.code == MPI_ERR_TRUNCATE
          ? "another rank sent more than this rank's count takes: the ranks passed "
            "different counts"
          : "another rank sent less than this rank's count asks for: the ranks "
            "passed different counts");
}

/** A window the program has (an error on none goes to MPI_COMM_WORLD's handler). */
inline int CheckWin(MPI_Win win, const char* call) {
  if (Client::Get().Win(win) != nullptr) return MPI_SUCCESS;
  return Client::Get().Error(MPI_COMM_WORLD, MPI_ERR_WIN, call, "invalid window");
}

/** An intercommunicator: its collectives run in api_intercoll.cc. */
inline bool IsIntercomm(MPI_Comm comm) {
  const CommInfo* c = Client::Get().Comm(comm);
  return c != nullptr && c->inter;
}

}  // namespace nicsim::mpi::capi
