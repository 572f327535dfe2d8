// SPDX-License-Identifier: Apache-2.0
// How the library reports an erroneous call: through the communicator's (or window's) error
// handler, with the text of MPI's error classes.
#include <cstdio>
#include <string>

#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/capi/errhandlers.h"
#include "ulp/mpi/capi/error_codes.h"

namespace nicsim::mpi::capi {

int Client::Error(MPI_Comm comm, int code, const char* call, const std::string& what) {
  // An error on no valid communicator is MPI_COMM_WORLD's (MPI 3.1, 8.3); before MPI_Init
  // there is no handler yet but the default.
  const MPI_Comm on = Comm(comm) != nullptr ? comm : MPI_COMM_WORLD;
  const CommInfo* c = Comm(on);
  const MPI_Errhandler handler = c != nullptr ? c->errhandler : MPI_ERRORS_ARE_FATAL;
  if (handler == MPI_ERRORS_RETURN) return code;
  if (MPI_Comm_errhandler_function* fn = ErrhandlerFunction(handler)) {
    // The handler gets copies: what it does to them does not change what the call returns.
    MPI_Comm handler_comm = on;
    int handler_code = code;
    fn(&handler_comm, &handler_code);
    return code;
  }
  Fatal(code, call, what);
}

int Client::WinError(MPI_Win win, int code, const char* call, const std::string& what) {
  const WinInfo* w = Win(win);
  // An error on no valid window is MPI_COMM_WORLD's (MPI 3.1, 8.3).
  if (w == nullptr) return Error(MPI_COMM_WORLD, code, call, what);
  if (w->errhandler == MPI_ERRORS_RETURN) return code;
  if (MPI_Comm_errhandler_function* fn = ErrhandlerFunction(w->errhandler)) {
    // A window's handler has a communicator handler's shape: ints for handles (mpi.h).
    MPI_Win handler_win = win;
    int handler_code = code;
    fn(&handler_win, &handler_code);
    return code;
  }
  Fatal(code, call, what);
}

void Client::Fatal(int code, const char* call, const std::string& what) {
  const std::string message = std::string(call) + ": " + ErrorDescription(code) +
                              (what.empty() ? "" : ": " + what) +
                              (initialized ? "" : " (called before MPI_Init)");
  // Before MPI_Init the process does not know its rank yet.
  if (initialized) {
    std::fprintf(stderr, "nicsim mpi: rank %d: %s\n", world_rank, message.c_str());
  } else {
    std::fprintf(stderr, "nicsim mpi: %s\n", message.c_str());
  }
  Abort(code, message);
}

const char* ErrorClassText(int code) {
  static const char* const kText[] = {
      "MPI_SUCCESS: no error",
      "MPI_ERR_BUFFER: invalid buffer pointer",
      "MPI_ERR_COUNT: invalid count argument",
      "MPI_ERR_TYPE: invalid datatype",
      "MPI_ERR_TAG: invalid tag",
      "MPI_ERR_COMM: invalid communicator",
      "MPI_ERR_RANK: invalid rank",
      "MPI_ERR_REQUEST: invalid request",
      "MPI_ERR_ROOT: invalid root",
      "MPI_ERR_GROUP: invalid group",
      "MPI_ERR_OP: invalid reduce operation",
      "MPI_ERR_TOPOLOGY: invalid topology",
      "MPI_ERR_DIMS: invalid dimension argument",
      "MPI_ERR_ARG: invalid argument",
      "MPI_ERR_UNKNOWN: unknown error",
      "MPI_ERR_TRUNCATE: message truncated",
      "MPI_ERR_OTHER: known error not in this list",
      "MPI_ERR_INTERN: internal error",
      "MPI_ERR_PENDING: pending request",
      "MPI_ERR_IN_STATUS: error code is in status",
      "MPI_ERR_ACCESS: permission denied",
      "MPI_ERR_AMODE: invalid file access mode",
      "MPI_ERR_ASSERT: invalid assert argument",
      "MPI_ERR_BAD_FILE: invalid file name",
      "MPI_ERR_BASE: invalid base address",
      "MPI_ERR_CONVERSION: data conversion failed",
      "MPI_ERR_DISP: invalid displacement",
      "MPI_ERR_DUP_DATAREP: data representation already defined",
      "MPI_ERR_FILE_EXISTS: file exists",
      "MPI_ERR_FILE_IN_USE: file in use by some process",
      "MPI_ERR_FILE: invalid file handle",
      "MPI_ERR_INFO_KEY: info key too long or empty",
      "MPI_ERR_INFO_NOKEY: info key not present",
      "MPI_ERR_INFO_VALUE: info value too long",
      "MPI_ERR_INFO: invalid info object",
      "MPI_ERR_IO: input/output error",
      "MPI_ERR_KEYVAL: invalid attribute key",
      "MPI_ERR_LOCKTYPE: invalid lock type",
      "MPI_ERR_NAME: unknown service name",
      "MPI_ERR_NO_MEM: out of memory",
      "MPI_ERR_NOT_SAME: arguments differ between processes",
      "MPI_ERR_NO_SPACE: not enough space",
      "MPI_ERR_NO_SUCH_FILE: no such file",
      "MPI_ERR_PORT: invalid port name",
      "MPI_ERR_QUOTA: quota exceeded",
      "MPI_ERR_READ_ONLY: file is read-only",
      "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
      "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
      "MPI_ERR_SERVICE: invalid service name",
      "MPI_ERR_SIZE: invalid size argument",
      "MPI_ERR_SPAWN: could not spawn processes",
      "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
      "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
      "MPI_ERR_WIN: invalid window",
      "MPI_ERR_RMA_RANGE: access outside the window",
      "MPI_ERR_RMA_ATTACH: memory cannot be attached",
      "MPI_ERR_RMA_SHARED: memory cannot be shared",
      "MPI_ERR_RMA_FLAVOR: wrong window flavor",
      "MPI_T_ERR_INVALID_HANDLE: invalid tool handle",
  };
  static_assert(sizeof(kText) / sizeof(kText[0]) == MPI_ERR_LASTCODE + 1,
                "one text per error class of mpi.h");
  if (code < 0 || code > MPI_ERR_LASTCODE) return "unknown error code";
  return kText[code];
}

}  // namespace nicsim::mpi::capi
