// SPDX-License-Identifier: Apache-2.0
// MPI's environment, communicator and error calls.
#include <cstring>

#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/limits.h"

using nicsim::mpi::capi::C;
using nicsim::mpi::capi::Client;
using nicsim::mpi::capi::Reply;
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** A handle's comm, or the error MPI_ERR_COMM names (through the comm's error handler). */
#define NICSIM_CHECK_COMM(comm, call)                                                 \
  do {                                                                               \
    if (C().Comm(comm) == nullptr) {                                                 \
      return C().Error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator");  \
    }                                                                                \
  } while (0)

}  // namespace

extern "C" {

int MPI_Init(int*, char***) {
  Client& c = C();
  c.Connect();
  Reply r = c.Call(Call::kInit, Writer());
  c.world_rank = r.results.Get<int32_t>();
  c.world_size = r.results.Get<int32_t>();
  c.processor_name = r.results.Str();
  c.AddComm(MPI_COMM_WORLD, c.world_rank, c.world_size, MPI_ERRORS_ARE_FATAL);
  c.AddComm(MPI_COMM_SELF, 0, 1, MPI_ERRORS_ARE_FATAL);
  c.initialized = true;
  return MPI_SUCCESS;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  // Calls travel one at a time over one channel: threads may call MPI, one at a time.
  *provided = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
  return MPI_Init(argc, argv);
}

int MPI_Finalize(void) {
  std::fflush(stdout);
  C().Call(Call::kFinalize, Writer());
  C().finalized = true;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  *flag = C().initialized;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  *flag = C().finalized;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm, int errorcode) {
  C().Abort(errorcode, "MPI_Abort(" + std::to_string(errorcode) + ")");
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  const std::string& n = C().processor_name;
  const size_t len = std::min<size_t>(n.size(), MPI_MAX_PROCESSOR_NAME - 1);
  std::memcpy(name, n.data(), len);
  name[len] = '\0';
  *resultlen = static_cast<int>(len);
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

double MPI_Wtime(void) { return C().Call(Call::kWtime, Writer()).results.Get<double>(); }

double MPI_Wtick(void) { return 1e-12; }  // simulated time counts picoseconds

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_rank");
  *rank = C().Comm(comm)->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_size");
  *size = C().Comm(comm)->size;
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_dup");
  Reply r = C().Call(Call::kCommDup, Writer().Put<int32_t>(comm));
  *newcomm = r.results.Get<int32_t>();
  const int rank = r.results.Get<int32_t>();
  const int size = r.results.Get<int32_t>();
  C().AddComm(*newcomm, rank, size, C().Comm(comm)->errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_split");
  if (color < 0 && color != MPI_UNDEFINED) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_split", "negative color");
  }
  Reply r = C().Call(Call::kCommSplit,
                     Writer().Put<int32_t>(comm).Put<int32_t>(color).Put<int32_t>(key));
  *newcomm = r.results.Get<int32_t>();
  const int rank = r.results.Get<int32_t>();
  const int size = r.results.Get<int32_t>();
  if (*newcomm != MPI_COMM_NULL) C().AddComm(*newcomm, rank, size, C().Comm(comm)->errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF || C().Comm(*comm) == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free", "not a freeable communicator");
  }
  C().Call(Call::kCommFree, Writer().Put<int32_t>(*comm));
  C().comms[*comm].valid = false;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  NICSIM_CHECK_COMM(comm1, "MPI_Comm_compare");
  NICSIM_CHECK_COMM(comm2, "MPI_Comm_compare");
  *result = C().Call(Call::kCommCompare, Writer().Put<int32_t>(comm1).Put<int32_t>(comm2))
                .results.Get<int32_t>();
  return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_get_attr");
  static int tag_ub = nicsim::mpi::kTagUb;
  static int wtime_is_global = 1;
  *flag = 1;
  if (keyval == MPI_TAG_UB) {
    *static_cast<int**>(attribute_val) = &tag_ub;
  } else if (keyval == MPI_WTIME_IS_GLOBAL) {
    *static_cast<int**>(attribute_val) = &wtime_is_global;
  } else {
    *flag = 0;
  }
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_set_errhandler");
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "unknown error handler");
  }
  C().comms[comm].errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_get_errhandler");
  *errhandler = C().Comm(comm)->errhandler;
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "unknown error code");
  }
  *errorclass = errorcode;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* text = nicsim::mpi::capi::ErrorClassText(errorcode);
  const size_t len = std::min<size_t>(std::strlen(text), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text, len);
  string[len] = '\0';
  *resultlen = static_cast<int>(len);
  return MPI_SUCCESS;
}

}  // extern "C"
