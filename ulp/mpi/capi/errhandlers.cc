// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/errhandlers.h"

#include <vector>

namespace nicsim::mpi::capi {
namespace {

/** Handles below are predefined (MPI-4 adds MPI_ERRORS_ABORT; room for it and kin). */
constexpr MPI_Errhandler kFirstUserHandler = 8;

struct UserErrhandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  /** Handles the program holds (made or got, not yet freed). */
  int program_refs = 0;
};

/**
 * Handle h is entry h - kFirstUserHandler. Entries stay for the life of the process: a
 * communicator keeps its handler's handle in CommInfo, whose release this table does not
 * see, so a handle the program freed may still be some communicator's handler. An entry is
 * a few bytes, and reusing none means a stale handle never reaches another's function.
 */
std::vector<UserErrhandler>& Handlers() {
  static auto* handlers = new std::vector<UserErrhandler>();  // never destroyed: atexit
  return *handlers;
}

UserErrhandler* Find(MPI_Errhandler h) {
  std::vector<UserErrhandler>& all = Handlers();
  const long i = static_cast<long>(h) - kFirstUserHandler;
  return i >= 0 && static_cast<size_t>(i) < all.size() ? &all[static_cast<size_t>(i)] : nullptr;
}

bool Predefined(MPI_Errhandler h) { return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN; }

}  // namespace

MPI_Errhandler AddErrhandler(MPI_Comm_errhandler_function* fn) {
  Handlers().push_back(UserErrhandler{fn, 1});
  return kFirstUserHandler + static_cast<MPI_Errhandler>(Handlers().size()) - 1;
}

MPI_Comm_errhandler_function* ErrhandlerFunction(MPI_Errhandler handler) {
  const UserErrhandler* u = Find(handler);
  return u != nullptr ? u->fn : nullptr;
}

bool KnownErrhandler(MPI_Errhandler handler) {
  return Predefined(handler) || Find(handler) != nullptr;
}

void HoldErrhandler(MPI_Errhandler handler) {
  if (UserErrhandler* u = Find(handler)) ++u->program_refs;
}

bool ReleaseErrhandler(MPI_Errhandler handler) {
  // A predefined handler is never destroyed; MPI_Comm_get_errhandler hands it out too, and
  // the program frees what it got.
  if (Predefined(handler)) return true;
  UserErrhandler* u = Find(handler);
  if (u == nullptr || u->program_refs == 0) return false;
  --u->program_refs;
  return true;
}

}  // namespace nicsim::mpi::capi
