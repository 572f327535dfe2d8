// SPDX-License-Identifier: Apache-2.0
// MPI's error handler and error class calls.
#include <algorithm>
#include <cstring>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/errhandlers.h"
#include "ulp/mpi/capi/error_codes.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

int SetErrhandler(MPI_Comm comm, MPI_Errhandler errhandler, const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  if (!KnownErrhandler(errhandler)) {
    return C().Error(comm, MPI_ERR_ARG, call, "unknown error handler");
  }
  C().comms[comm].errhandler = errhandler;
  return MPI_SUCCESS;
}

int GetErrhandler(MPI_Comm comm, MPI_Errhandler* errhandler, const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  if (errhandler == nullptr) return C().Error(comm, MPI_ERR_ARG, call, "null errhandler");
  *errhandler = C().Comm(comm)->errhandler;
  // The caller gets a handle of its own, which it frees (MPI 3.1, 8.3.1).
  HoldErrhandler(*errhandler);
  return MPI_SUCCESS;
}

int CreateErrhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler,
                     const char* call) {
  if (fn == nullptr || errhandler == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "null function or errhandler");
  }
  *errhandler = AddErrhandler(fn);
  return MPI_SUCCESS;
}

/** Copies `text` into MPI's string argument of `capacity` bytes, terminated. */
void CopyOut(const std::string& text, size_t capacity, char* out, int* len) {
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *len = static_cast<int>(n);
}

}  // namespace

extern "C" {

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return SetErrhandler(comm, errhandler, "MPI_Comm_set_errhandler");
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return GetErrhandler(comm, errhandler, "MPI_Comm_get_errhandler");
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return CreateErrhandler(comm_errhandler_fn, errhandler, "MPI_Comm_create_errhandler");
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_call_errhandler"));
  // The handler ran (or ended the run): with MPI_ERRORS_RETURN too, the call itself succeeded.
  C().Error(comm, errorcode, "MPI_Comm_call_errhandler", "");
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  if (errhandler == nullptr || !ReleaseErrhandler(*errhandler)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free",
                     "not an error handler the program holds");
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return CreateErrhandler(function, errhandler, "MPI_Errhandler_create");
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return SetErrhandler(comm, errhandler, "MPI_Errhandler_set");
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return GetErrhandler(comm, errhandler, "MPI_Errhandler_get");
}

int MPI_Error_class(int errorcode, int* errorclass) {
  const int error_class = ErrorClassOf(errorcode);
  if (error_class < 0 || errorclass == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                     "unknown error code " + std::to_string(errorcode));
  }
  *errorclass = error_class;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (ErrorClassOf(errorcode) < 0 || string == nullptr || resultlen == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string",
                     "unknown error code " + std::to_string(errorcode));
  }
  CopyOut(ErrorString(errorcode), MPI_MAX_ERROR_STRING, string, resultlen);
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int* errorclass) {
  if (errorclass == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_class", "null errorclass");
  }
  *errorclass = AddErrorClass();
  return MPI_SUCCESS;
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  if (errorcode == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code", "null errorcode");
  }
  const int code = AddErrorCode(errorclass);
  if (code < 0) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code",
                     "no error class " + std::to_string(errorclass));
  }
  *errorcode = code;
  return MPI_SUCCESS;
}

int MPI_Add_error_string(int errorcode, const char* string) {
  if (string == nullptr || strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                     "null string or longer than MPI_MAX_ERROR_STRING - 1");
  }
  // The texts of MPI's own classes stay as they are (MPI 3.1, 8.5).
  if (!SetErrorString(errorcode, string)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                     "not an added error code " + std::to_string(errorcode));
  }
  return MPI_SUCCESS;
}

}  // extern "C"
