// SPDX-License-Identifier: Apache-2.0
// MPI's point-to-point calls: sends and receives, probes (their completion: api_completion.cc).
#include <memory>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/p2p.h"
#include "ulp/mpi/capi/wire_status.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** The checks every send makes (and every receive, with wildcards allowed). */
int CheckMessage(const void* buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 bool receive, const char* call, const TypeInfo** t) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, count, type, call, t));
  NICSIM_MPI_TRY(CheckPeer(comm, peer, receive, call));
  NICSIM_MPI_TRY(CheckTag(comm, tag, receive, call));
  if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
  const uint64_t bytes = static_cast<uint64_t>(count) * (*t)->size;
  if (!receive && bytes > nicsim::mpi::kMaxMessageBytes) {
    // Refused before a byte is packed: nothing of it reaches the simulator.
    return C().Error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                     "a message of " + std::to_string(bytes) + " bytes: nicsim carries at most " +
                         std::to_string(nicsim::mpi::kMaxMessageBytes) + " bytes in one message");
  }
  return CheckBuffer(comm, buf, count, **t, call);
}

/** A receive the simulator could not take: the room it asked for is more than it can hold. */
int ReceiveRefused(MPI_Comm comm, int code, int count, const TypeInfo& t, const char* call) {
  return C().Error(comm, code, call,
                   "the simulator cannot hold a receive of " +
                       std::to_string(static_cast<uint64_t>(count) * t.size) + " bytes");
}

/** kSend and kIsend's arguments: the envelope and the packed data. */
Writer SendArgs(const void* buf, int count, const TypeInfo& t, int dest, int tag, MPI_Comm comm,
                bool sync) {
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(C().Comm(comm)->ToServer(dest)).Put<int32_t>(tag);
  w.Put<uint8_t>(sync);
  w.Blob(Pack(buf, static_cast<size_t>(count), t));
  return w;
}

/** kRecv and kIrecv's arguments: the envelope and the room for the data. */
Writer RecvArgs(int count, const TypeInfo& t, int source, int tag, MPI_Comm comm) {
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(C().Comm(comm)->ToServer(source)).Put<int32_t>(tag);
  w.Put<uint64_t>(static_cast<uint64_t>(count) * t.size);
  return w;
}

int Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, bool sync,
         const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckMessage(buf, count, type, dest, tag, comm, false, call, &t));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return C().CallWithoutReply(Call::kSend, SendArgs(buf, count, *t, dest, tag, comm, sync));
}

int Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          bool sync, MPI_Request* request, const char* call) {
  RequestInfo info;
  NICSIM_MPI_TRY(StartSend(buf, count, type, dest, tag, comm, sync, call, &info));
  *request = C().AddRequest(info);
  return MPI_SUCCESS;
}

int Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* request, const char* call) {
  RequestInfo info;
  NICSIM_MPI_TRY(StartRecv(buf, count, type, source, tag, comm, call, &info));
  *request = C().AddRequest(info);
  return MPI_SUCCESS;
}

}  // namespace

namespace nicsim::mpi::capi {

int StartSend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              bool sync, const char* call, RequestInfo* info) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckMessage(buf, count, type, dest, tag, comm, false, call, &t));
  return StartSendOf(buf, count, *t, dest, tag, comm, sync, call, info);
}

int StartSendOf(const void* buf, int count, const TypeInfo& t, int dest, int tag, MPI_Comm comm,
                bool sync, const char*, RequestInfo* info) {
  info->comm = comm;
  info->recv = false;
  info->server = kDone;
  if (dest != MPI_PROC_NULL) {
    info->server = C().Call(Call::kIsend, SendArgs(buf, count, t, dest, tag, comm, sync))
                       .results.Get<uint64_t>();
  }
  return MPI_SUCCESS;
}

int StartRecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              const char* call, RequestInfo* info) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckMessage(buf, count, type, source, tag, comm, true, call, &t));
  return StartRecvOf(buf, count, *t, source, tag, comm, call, info);
}

int StartRecvOf(void* buf, int count, const TypeInfo& t, int source, int tag, MPI_Comm comm,
                const char* call, RequestInfo* info) {
  info->comm = comm;
  info->recv = true;
  info->buf = buf;
  info->count = count;
  info->recv_type = std::make_shared<TypeInfo>(t);
  info->server = kDone;
  if (source != MPI_PROC_NULL) {
    nicsim::mpi::capi::Reply r = C().Call(Call::kIrecv, RecvArgs(count, t, source, tag, comm));
    if (r.code != MPI_SUCCESS) return ReceiveRefused(comm, r.code, count, t, call);
    info->server = r.results.Get<uint64_t>();
  }
  return MPI_SUCCESS;
}

}  // namespace nicsim::mpi::capi

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Send(buf, count, datatype, dest, tag, comm, false, "MPI_Send");
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Send(buf, count, datatype, dest, tag, comm, true, "MPI_Ssend");
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Send(buf, count, datatype, dest, tag, comm, false, "MPI_Rsend");
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return Isend(buf, count, datatype, dest, tag, comm, false, request, "MPI_Isend");
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return Isend(buf, count, datatype, dest, tag, comm, true, request, "MPI_Issend");
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return Isend(buf, count, datatype, dest, tag, comm, false, request, "MPI_Irsend");
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return Irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  const char* call = "MPI_Recv";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckMessage(buf, count, datatype, source, tag, comm, true, call, &t));
  if (source == MPI_PROC_NULL) {
    Fill(status, Empty(MPI_PROC_NULL));
    return MPI_SUCCESS;
  }
  nicsim::mpi::capi::Reply reply = C().Call(Call::kRecv, RecvArgs(count, *t, source, tag, comm));
  if (reply.code != MPI_SUCCESS) return ReceiveRefused(comm, reply.code, count, *t, call);
  WireStatus s = ReadStatus(reply.results);
  s.source = C().Comm(comm)->FromServer(s.source);
  const auto [data, n] = reply.results.Blob();
  Unpack(data, n, buf, static_cast<size_t>(count), *t);
  Fill(status, s);
  if (s.truncated) return C().Error(comm, MPI_ERR_TRUNCATE, call, "message longer than the buffer");
  return MPI_SUCCESS;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  MPI_Request rs[2];
  NICSIM_MPI_TRY(
      Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rs[0], "MPI_Sendrecv"));
  NICSIM_MPI_TRY(
      Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, false, &rs[1], "MPI_Sendrecv"));
  MPI_Status st[2];
  const int code = MPI_Waitall(2, rs, st);
  if (status != MPI_STATUS_IGNORE) *status = st[0];
  return code == MPI_ERR_IN_STATUS ? st[0].MPI_ERROR : code;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  // The send's bytes are copied out when it starts, so the receive may land in the same buffer.
  MPI_Request rs[2];
  NICSIM_MPI_TRY(
      Isend(buf, count, datatype, dest, sendtag, comm, false, &rs[0], "MPI_Sendrecv_replace"));
  NICSIM_MPI_TRY(
      Irecv(buf, count, datatype, source, recvtag, comm, &rs[1], "MPI_Sendrecv_replace"));
  MPI_Status st[2];
  const int code = MPI_Waitall(2, rs, st);
  if (status != MPI_STATUS_IGNORE) *status = st[1];
  return code == MPI_ERR_IN_STATUS ? st[1].MPI_ERROR : code;
}

static int Probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status, bool block,
                 const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  NICSIM_MPI_TRY(CheckPeer(comm, source, true, call));
  NICSIM_MPI_TRY(CheckTag(comm, tag, true, call));
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    Fill(status, Empty(MPI_PROC_NULL));
    return MPI_SUCCESS;
  }
  Writer w;
  w.Put<int32_t>(comm).Put<int32_t>(C().Comm(comm)->ToServer(source)).Put<int32_t>(tag);
  w.Put<uint8_t>(block);
  nicsim::mpi::capi::Reply reply = C().Call(Call::kProbe, w);
  *flag = reply.results.Get<uint8_t>() != 0;
  WireStatus s = ReadStatus(reply.results);
  s.source = C().Comm(comm)->FromServer(s.source);
  if (*flag) Fill(status, s);
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  int flag = 0;
  return Probe(source, tag, comm, &flag, status, true, "MPI_Probe");
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return Probe(source, tag, comm, flag, status, false, "MPI_Iprobe");
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo* t = C().types.Usable(datatype);
  if (t == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_count", "");
  const auto bytes = static_cast<size_t>(status->nicsim_bytes);
  if (t->size == 0) {
    *count = 0;
  } else {
    *count = bytes % t->size == 0 ? static_cast<int>(bytes / t->size) : MPI_UNDEFINED;
  }
  return MPI_SUCCESS;
}

}  // extern "C"
