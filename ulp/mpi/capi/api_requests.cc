// SPDX-License-Identifier: Apache-2.0
// MPI's persistent requests (made once, started many times) and cancellation.
#include <memory>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/p2p.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;
using Kind = nicsim::mpi::capi::PersistentArgs::Kind;

namespace {

/** Checks the arguments as the operation would, and makes an idle persistent request. */
int Init(Kind kind, const void* buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
         MPI_Request* request, const char* call) {
  const bool recv = kind == Kind::kRecv;
  NICSIM_MPI_TRY(CheckComm(comm, call));
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, &t));
  NICSIM_MPI_TRY(CheckPeer(comm, peer, recv, call));
  NICSIM_MPI_TRY(CheckTag(comm, tag, recv, call));
  RequestInfo info;
  info.comm = comm;
  info.recv = recv;
  info.persistent = true;
  info.active = false;
  info.args = PersistentArgs{kind, buf, count, std::make_shared<TypeInfo>(*t), peer, tag};
  *request = C().AddRequest(info);
  return MPI_SUCCESS;
}

/** Starts an idle persistent request: the operation it describes begins now. */
int Start(MPI_Request request, const char* call) {
  RequestInfo* r = C().Request(request);
  if (r == nullptr || !r->persistent) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "not a persistent request");
  }
  if (r->active) return C().Error(r->comm, MPI_ERR_REQUEST, call, "the request is active");
  const PersistentArgs a = r->args;
  RequestInfo started = *r;
  const int code = a.kind == Kind::kRecv
                       ? StartRecvOf(const_cast<void*>(a.buf), a.count, *a.type, a.peer, a.tag,
                                     r->comm, call, &started)
                       : StartSendOf(a.buf, a.count, *a.type, a.peer, a.tag, r->comm,
                                     a.kind == Kind::kSsend, call, &started);
  if (code != MPI_SUCCESS) return code;
  started.active = true;
  *C().Request(request) = started;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return Init(Kind::kSend, buf, count, datatype, dest, tag, comm, request, "MPI_Send_init");
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Init(Kind::kSsend, buf, count, datatype, dest, tag, comm, request, "MPI_Ssend_init");
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Init(Kind::kRsend, buf, count, datatype, dest, tag, comm, request, "MPI_Rsend_init");
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  // Every send copies the program's bytes out as it starts, as a buffered send does.
  return Init(Kind::kBsend, buf, count, datatype, dest, tag, comm, request, "MPI_Bsend_init");
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return Init(Kind::kRecv, buf, count, datatype, source, tag, comm, request, "MPI_Recv_init");
}

int MPI_Start(MPI_Request* request) { return Start(*request, "MPI_Start"); }

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  if (count < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Startall", "negative count");
  for (int i = 0; i < count; ++i) NICSIM_MPI_TRY(Start(array_of_requests[i], "MPI_Startall"));
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request* request) {
  RequestInfo* r = C().Request(*request);
  if (r == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "invalid request");
  }
  // A generalized request is the program's own: its cancel callback decides.
  if (r->generalized) {
    return r->generalized->cancel(r->generalized->extra_state, r->generalized->complete);
  }
  // A receive nothing has matched yet completes as cancelled; any other operation completes
  // as usual (MPI allows a cancel to fail), which MPI_Test_cancelled then reports.
  if (r->active && r->recv && r->server != 0) {
    C().Call(Call::kCancel, Writer().Put<uint64_t>(r->server));
  }
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->nicsim_cancelled != 0;
  return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  status->nicsim_cancelled = flag != 0;
  return MPI_SUCCESS;
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  // The send's bytes are copied out as it starts, so the receive may land in the same buffer;
  // the request is the receive's (the send completes on its own).
  MPI_Request send = MPI_REQUEST_NULL;
  NICSIM_MPI_TRY(MPI_Isend(buf, count, datatype, dest, sendtag, comm, &send));
  NICSIM_MPI_TRY(MPI_Request_free(&send));
  return MPI_Irecv(buf, count, datatype, source, recvtag, comm, request);
}

}  // extern "C"
