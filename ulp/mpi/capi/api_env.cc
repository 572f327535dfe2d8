// SPDX-License-Identifier: Apache-2.0
// MPI's environment, communicator and error calls.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/capi/intercomm.h"
#include "ulp/mpi/capi/object_hooks.h"
#include "ulp/mpi/limits.h"

using nicsim::mpi::capi::C;
using nicsim::mpi::capi::Client;
using nicsim::mpi::capi::CommInfo;
using nicsim::mpi::capi::CopyCommAttributes;
using nicsim::mpi::capi::CopyCommTopology;
using nicsim::mpi::capi::DeleteCommAttributes;
using nicsim::mpi::capi::ForgetCommTopology;
using nicsim::mpi::capi::Reply;
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** A handle's comm, or the error MPI_ERR_COMM names (through the comm's error handler). */
#define NICSIM_CHECK_COMM(comm, call)                                               \
  do {                                                                              \
    if (C().Comm(comm) == nullptr) {                                                \
      return C().Error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator"); \
    }                                                                               \
  } while (0)

/** MPI_Comm_dup through `call` (kCommDup or kCommIdup): the duplicate with the old one's
 *  attributes (copied by their callbacks) and topology. */
int DupComm(Call call, MPI_Comm comm, MPI_Comm* newcomm, const char* name) {
  Reply r = C().Call(call, Writer().Put<int32_t>(comm));
  const CommInfo old = *C().Comm(comm);
  *newcomm = C().AddMade(r.results, old.errhandler);
  // A duplicate of an intercommunicator has its groups (the simulator's has both in one), and
  // a communicator of its own for its collectives.
  if (old.inter && *newcomm != MPI_COMM_NULL) {
    CommInfo copy = old;
    copy.collectives =
        C().Call(call, Writer().Put<int32_t>(old.collectives)).results.Get<int32_t>();
    C().comms[*newcomm] = copy;
  }
  if (const int code = CopyCommAttributes(comm, *newcomm); code != MPI_SUCCESS) {
    // A copy callback refused: the duplicate goes again, with what was copied to it.
    C().Call(Call::kCommFree, Writer().Put<int32_t>(*newcomm));
    C().comms[*newcomm] = CommInfo{};
    *newcomm = MPI_COMM_NULL;
    return C().Error(comm, code, name, "an attribute's copy callback failed");
  }
  CopyCommTopology(comm, *newcomm);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Init(int*, char***) {
  Client& c = C();
  if (c.initialized) {
    return c.Error(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Init", "MPI is initialised already");
  }
  c.Connect();
  Reply r = c.Call(Call::kInit, Writer());
  c.world_rank = r.results.Get<int32_t>();
  c.world_size = r.results.Get<int32_t>();
  c.processor_name = r.results.Str();
  std::vector<int> world(static_cast<size_t>(c.world_size));
  for (int i = 0; i < c.world_size; ++i) world[static_cast<size_t>(i)] = i;
  c.AddComm(MPI_COMM_WORLD, c.world_rank, std::move(world), MPI_ERRORS_ARE_FATAL);
  c.AddComm(MPI_COMM_SELF, 0, {c.world_rank}, MPI_ERRORS_ARE_FATAL);
  c.initialized = true;
  c.initialised_by = getpid();
  return MPI_SUCCESS;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  // Calls travel one at a time over one channel: threads may call MPI, one at a time.
  *provided = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
  C().thread_level = *provided;
  return MPI_Init(argc, argv);
}

int MPI_Query_thread(int* provided) {
  *provided = C().thread_level;
  return MPI_SUCCESS;
}

int MPI_Is_thread_main(int* flag) {
  // The main thread is the one that initialised MPI, the process's first thread here.
  *flag = static_cast<pid_t>(syscall(SYS_gettid)) == getpid();
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  // MPI_COMM_SELF's attributes are deleted first: programs hang clean-up on them.
  DeleteCommAttributes(MPI_COMM_SELF);
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

int MPI_Get_library_version(char* version, int* resultlen) {
  const char text[] = "nicsim MPI 3.1 (libnicsim_mpi over the simulated cluster)";
  std::memcpy(version, text, sizeof(text));
  *resultlen = static_cast<int>(sizeof(text) - 1);
  return MPI_SUCCESS;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  if (size < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_SIZE, "MPI_Alloc_mem", "negative size");
  void* p = std::malloc(size == 0 ? 1 : static_cast<size_t>(size));
  if (p == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "");
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  std::free(base);
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
  return DupComm(Call::kCommDup, comm, newcomm, "MPI_Comm_dup");
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_idup");
  // The simulator makes the duplicate without a message (Mpi::Idup), so no member waits for
  // another here and the request is complete when it is returned.
  if (const int code = DupComm(Call::kCommIdup, comm, newcomm, "MPI_Comm_idup");
      code != MPI_SUCCESS) {
    return code;
  }
  nicsim::mpi::capi::RequestInfo done;
  done.comm = comm;
  *request = C().AddRequest(done);
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  NICSIM_CHECK_COMM(comm, "MPI_Comm_split");
  if (color < 0 && color != MPI_UNDEFINED) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_split", "negative color");
  }
  if (C().Comm(comm)->inter) {
    *newcomm = nicsim::mpi::capi::SplitIntercomm(comm, color, key);
    return MPI_SUCCESS;
  }
  Reply r =
      C().Call(Call::kCommSplit, Writer().Put<int32_t>(comm).Put<int32_t>(color).Put<int32_t>(key));
  *newcomm = C().AddMade(r.results, C().Comm(comm)->errhandler);
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF || C().Comm(*comm) == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free", "not a freeable communicator");
  }
  // The delete callbacks may still look at the communicator: it goes after them, and goes
  // even if one fails (its attributes are gone by then).
  const int code = DeleteCommAttributes(*comm);
  ForgetCommTopology(*comm);
  const int reported = code == MPI_SUCCESS ? MPI_SUCCESS
                                           : C().Error(*comm, code, "MPI_Comm_free",
                                                       "an attribute's delete callback failed");
  C().Call(Call::kCommFree, Writer().Put<int32_t>(*comm));
  if (const MPI_Comm coll = C().comms[*comm].collectives; coll != MPI_COMM_NULL) {
    C().Call(Call::kCommFree, Writer().Put<int32_t>(coll));
  }
  C().comms[*comm] = CommInfo{};
  *comm = MPI_COMM_NULL;
  return reported;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  NICSIM_CHECK_COMM(comm1, "MPI_Comm_compare");
  NICSIM_CHECK_COMM(comm2, "MPI_Comm_compare");
  *result = C().Call(Call::kCommCompare, Writer().Put<int32_t>(comm1).Put<int32_t>(comm2))
                .results.Get<int32_t>();
  return MPI_SUCCESS;
}

}  // extern "C"
