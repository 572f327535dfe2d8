// SPDX-License-Identifier: Apache-2.0
// MPI's buffered sends. Every send here copies the program's bytes out as it starts, so a
// buffered send is a standard send whose request the library keeps; what the attached buffer
// adds is MPI's accounting: a message takes its packed size plus MPI_BSEND_OVERHEAD of the
// buffer until it has left, a send that does not fit fails with MPI_ERR_BUFFER, and detaching
// waits for every buffered message.
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/p2p.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

struct Buffered {
  MPI_Request request;
  size_t bytes;
};

/** The attached buffer and the messages that hold part of it. */
struct AttachedBuffer {
  void* base = nullptr;
  size_t size = 0;
  bool attached = false;
  std::vector<Buffered> pending;
};

AttachedBuffer& Attached() {
  static AttachedBuffer buffer;
  return buffer;
}

/** Forgets the buffered messages that have left, giving their room back. */
void Reclaim() {
  std::vector<Buffered>& pending = Attached().pending;
  for (size_t i = 0; i < pending.size();) {
    int done = 0;
    MPI_Test(&pending[i].request, &done, MPI_STATUS_IGNORE);
    if (done) {
      pending[i] = pending.back();
      pending.pop_back();
    } else {
      ++i;
    }
  }
}

/** Starts a buffered send whose room the attached buffer has; its request stays here. */
int Buffer(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  AttachedBuffer& a = Attached();
  Reclaim();
  size_t used = 0;
  for (const Buffered& b : a.pending) used += b.bytes;
  const size_t need = static_cast<size_t>(count) * t->size + MPI_BSEND_OVERHEAD;
  if (dest != MPI_PROC_NULL && (!a.attached || used + need > a.size)) {
    return C().Error(comm, MPI_ERR_BUFFER, call,
                     "the attached buffer has " + std::to_string(a.attached ? a.size - used : 0) +
                         " bytes free; the message needs " + std::to_string(need));
  }
  RequestInfo info;
  NICSIM_MPI_TRY(StartSend(buf, count, type, dest, tag, comm, false, call, &info));
  if (dest != MPI_PROC_NULL) a.pending.push_back(Buffered{C().AddRequest(info), need});
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Buffer_attach(void* buffer, int size) {
  AttachedBuffer& a = Attached();
  if (a.attached) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is attached");
  }
  if (size < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_attach", "negative size");
  a.base = buffer;
  a.size = static_cast<size_t>(size);
  a.attached = true;
  return MPI_SUCCESS;
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  AttachedBuffer& a = Attached();
  // Every buffered message leaves before the buffer goes back to the program.
  for (Buffered& b : a.pending) MPI_Wait(&b.request, MPI_STATUS_IGNORE);
  a.pending.clear();
  *static_cast<void**>(buffer_addr) = a.attached ? a.base : nullptr;
  *size = a.attached ? static_cast<int>(a.size) : 0;
  a = AttachedBuffer{};
  return MPI_SUCCESS;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Buffer(buf, count, datatype, dest, tag, comm, "MPI_Bsend");
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  // Complete as soon as the message is buffered, which it is on return.
  NICSIM_MPI_TRY(Buffer(buf, count, datatype, dest, tag, comm, "MPI_Ibsend"));
  RequestInfo done;
  done.comm = comm;
  *request = C().AddRequest(done);
  return MPI_SUCCESS;
}

}  // extern "C"
