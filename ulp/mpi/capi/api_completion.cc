// SPDX-License-Identifier: Apache-2.0
// Completion of requests: MPI_Wait and MPI_Test in every form, and MPI_Request_free. The
// simulator's requests complete there (a receive's bytes are unpacked into the program's
// buffer); generalized requests, the program's own, complete through their callbacks.
#include <algorithm>
#include <memory>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/rma.h"
#include "ulp/mpi/capi/wire_status.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::CompleteMode;
using nicsim::mpi::wire::Writer;

namespace {

/** A request that takes part in completion: not MPI_REQUEST_NULL nor persistent and idle. */
bool Active(MPI_Request request) {
  const RequestInfo* r = C().Request(request);
  return r != nullptr && r->active;
}

/** A generalized request the program has not completed yet. */
bool PendingGeneralized(MPI_Request request) {
  const RequestInfo* r = C().Request(request);
  return r != nullptr && r->active && r->generalized && !r->generalized->complete;
}

/** The status of a completed generalized request: its query callback fills it, then its free
 *  callback runs (a failing one's code is the status's error), and the request is freed. */
WireStatus FinishGeneralized(MPI_Request* request) {
  const std::shared_ptr<GeneralizedRequest> g = C().Request(*request)->generalized;
  MPI_Status st{};
  st.MPI_SOURCE = MPI_UNDEFINED;
  st.MPI_TAG = MPI_UNDEFINED;
  const int queried = g->query(g->extra_state, &st);
  const int freed = g->free(g->extra_state);
  C().FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  WireStatus out{st.MPI_SOURCE, st.MPI_TAG, static_cast<uint64_t>(st.nicsim_bytes), false,
                 st.nicsim_cancelled != 0};
  out.error = queried != MPI_SUCCESS ? queried : freed;
  return out;
}

/**
 * The outcome of one completed request, placed into its buffer; the request is freed, or, if
 * persistent, goes idle until it is started again.
 */
WireStatus Finish(MPI_Request* request, const WireStatus& s, const uint8_t* data, size_t n) {
  RequestInfo* r = C().Request(*request);
  if (r->generalized) return FinishGeneralized(request);
  if (r->recv && r->server != kDone) {
    Unpack(data, n, r->buf, static_cast<size_t>(r->count), *r->recv_type);
  }
  WireStatus out = r->server == kDone && r->recv ? Empty(MPI_PROC_NULL) : s;
  if (const CommInfo* c = C().Comm(r->comm); c != nullptr) out.source = c->FromServer(out.source);
  if (r->persistent) {
    r->active = false;
    r->server = kDone;
    return out;
  }
  C().FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  return out;
}

/**
 * Waits for or tests `requests` as `mode` says. `done[i]` is set for each request completed
 * (and freed), with its status in `statuses[i]`. Returns the simulator's flag (test modes:
 * whether the condition held).
 */
bool Complete(CompleteMode mode, int count, MPI_Request requests[],
              std::vector<WireStatus>& statuses, std::vector<bool>& done) {
  statuses.assign(static_cast<size_t>(count), Empty(MPI_ANY_SOURCE));
  done.assign(static_cast<size_t>(count), false);
  // A generalized request the program has not completed is not the simulator's to wait for:
  // it is left out (a wait that has nothing else was refused before this).
  bool pending = false;
  for (int i = 0; i < count; ++i) pending |= PendingGeneralized(requests[i]);
  // A request-based one-sided operation completes here, at its target (a blocking step, as
  // MPI allows of a test too).
  for (int i = 0; i < count; ++i) {
    if (RequestInfo* r = Active(requests[i]) ? C().Request(requests[i]) : nullptr) {
      CompleteRmaRequest(*r);
    }
  }
  if (pending && mode == CompleteMode::kTestAll) return false;
  Writer w;
  w.Put<uint8_t>(static_cast<uint8_t>(mode)).Put<uint32_t>(static_cast<uint32_t>(count));
  for (int i = 0; i < count; ++i) {
    const bool sent = Active(requests[i]) && !PendingGeneralized(requests[i]);
    w.Put<uint64_t>(sent ? C().Request(requests[i])->server : kInactive);
  }
  nicsim::mpi::capi::Reply reply = C().Call(Call::kComplete, w);
  bool flag = reply.results.Get<uint8_t>() != 0;
  const auto k = reply.results.Get<uint32_t>();
  for (uint32_t j = 0; j < k && !reply.results.failed(); ++j) {
    const auto i = reply.results.Get<uint32_t>();
    const WireStatus s = ReadStatus(reply.results);
    const auto [data, n] = reply.results.Blob();
    if (i >= static_cast<uint32_t>(count)) continue;
    statuses[i] = Finish(&requests[i], s, data, n);
    done[i] = true;
  }
  // "No active request" does not hold while a generalized one is pending.
  if (pending && mode == CompleteMode::kTestAny &&
      std::find(done.begin(), done.end(), true) == done.end()) {
    flag = false;
  }
  return flag;
}

/**
 * A wait that only a pending generalized request could end: the program's one thread at a
 * time is in this call, so nothing can complete it (MPI_ERR_REQUEST). All: any pending; any
 * or some: pending ones and no other active request.
 */
int CheckWaitCanEnd(CompleteMode mode, int count, MPI_Request requests[], const char* call) {
  if (mode != CompleteMode::kWaitAll && mode != CompleteMode::kWaitAny &&
      mode != CompleteMode::kWaitSome) {
    return MPI_SUCCESS;  // a test returns, complete or not
  }
  bool pending = false, other = false;
  for (int i = 0; i < count; ++i) {
    if (PendingGeneralized(requests[i])) {
      pending = true;
    } else {
      other |= Active(requests[i]);
    }
  }
  if (!pending || (mode != CompleteMode::kWaitAll && other)) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call,
                   "waits for a generalized request that nothing can complete while it waits "
                   "(MPI_Grequest_complete has not been called)");
}

/** MPI_ERR_IN_STATUS (filling each status's error) if a completed receive was cut short. */
int StatusesCode(int count, const std::vector<WireStatus>& st, const std::vector<bool>& done,
                 const char* call) {
  bool truncated = false, failed = false;
  for (int i = 0; i < count; ++i) {
    if (done[i] && st[i].truncated) truncated = true;
    if (done[i] && st[i].error != MPI_SUCCESS) failed = true;
  }
  if (!truncated && !failed) return MPI_SUCCESS;
  return C().Error(
      MPI_COMM_WORLD, MPI_ERR_IN_STATUS, call,
      truncated ? "a message was truncated" : "a generalized request's callback failed");
}

int CheckRequests(int count, MPI_Request requests[], const char* call) {
  if (count < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count");
  for (int i = 0; i < count; ++i) {
    if (requests[i] != MPI_REQUEST_NULL && C().Request(requests[i]) == nullptr) {
      return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "invalid request");
    }
  }
  return MPI_SUCCESS;
}

/** MPI_Wait and MPI_Test: one request (MPI_REQUEST_NULL is complete at once). */
int One(CompleteMode mode, MPI_Request* request, int* flag, MPI_Status* status, const char* call) {
  *flag = 1;
  NICSIM_MPI_TRY(CheckRequests(1, request, call));
  if (!Active(*request)) {
    Fill(status, Empty(MPI_ANY_SOURCE));
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = C().Request(*request)->comm;
  NICSIM_MPI_TRY(CheckWaitCanEnd(mode, 1, request, call));
  std::vector<WireStatus> st;
  std::vector<bool> done;
  *flag = Complete(mode, 1, request, st, done);
  if (!*flag) return MPI_SUCCESS;
  Fill(status, st[0]);
  if (st[0].truncated) return C().Error(comm, MPI_ERR_TRUNCATE, call, "message truncated");
  if (st[0].error != MPI_SUCCESS) {
    return C().Error(MPI_COMM_WORLD, st[0].error, call, "a generalized request's callback failed");
  }
  return MPI_SUCCESS;
}

/** MPI_Waitsome and MPI_Testsome: the requests that completed, by index. */
int Some(CompleteMode mode, int incount, MPI_Request requests[], int* outcount, int indices[],
         MPI_Status statuses[], const char* call) {
  NICSIM_MPI_TRY(CheckRequests(incount, requests, call));
  NICSIM_MPI_TRY(CheckWaitCanEnd(mode, incount, requests, call));
  bool active = false;
  for (int i = 0; i < incount; ++i) active |= Active(requests[i]);
  std::vector<WireStatus> st;
  std::vector<bool> done;
  Complete(mode, incount, requests, st, done);
  int k = 0;
  for (int i = 0; i < incount; ++i) {
    if (!done[i]) continue;
    indices[k] = i;
    if (statuses != MPI_STATUSES_IGNORE) Fill(&statuses[k], st[i]);
    ++k;
  }
  *outcount = active ? k : MPI_UNDEFINED;
  return StatusesCode(incount, st, done, call);
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  int flag = 0;
  return One(CompleteMode::kWaitAll, request, &flag, status, "MPI_Wait");
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  NICSIM_MPI_TRY(CheckRequests(count, requests, "MPI_Waitall"));
  NICSIM_MPI_TRY(CheckWaitCanEnd(CompleteMode::kWaitAll, count, requests, "MPI_Waitall"));
  std::vector<WireStatus> st;
  std::vector<bool> done;
  Complete(CompleteMode::kWaitAll, count, requests, st, done);
  for (int i = 0; statuses != MPI_STATUSES_IGNORE && i < count; ++i) Fill(&statuses[i], st[i]);
  return StatusesCode(count, st, done, "MPI_Waitall");
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  NICSIM_MPI_TRY(CheckRequests(count, requests, "MPI_Waitany"));
  NICSIM_MPI_TRY(CheckWaitCanEnd(CompleteMode::kWaitAny, count, requests, "MPI_Waitany"));
  std::vector<WireStatus> st;
  std::vector<bool> done;
  Complete(CompleteMode::kWaitAny, count, requests, st, done);
  *index = MPI_UNDEFINED;
  Fill(status, Empty(MPI_ANY_SOURCE));
  for (int i = 0; i < count; ++i) {
    if (!done[i]) continue;
    *index = i;
    Fill(status, st[i]);
    if (st[i].truncated) return C().Error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, "MPI_Waitany", "");
    break;
  }
  return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return Some(CompleteMode::kWaitSome, incount, requests, outcount, indices, statuses,
              "MPI_Waitsome");
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return One(CompleteMode::kTestAll, request, flag, status, "MPI_Test");
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  NICSIM_MPI_TRY(CheckRequests(count, requests, "MPI_Testall"));
  std::vector<WireStatus> st;
  std::vector<bool> done;
  *flag = Complete(CompleteMode::kTestAll, count, requests, st, done);
  if (!*flag) return MPI_SUCCESS;
  for (int i = 0; statuses != MPI_STATUSES_IGNORE && i < count; ++i) Fill(&statuses[i], st[i]);
  return StatusesCode(count, st, done, "MPI_Testall");
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  NICSIM_MPI_TRY(CheckRequests(count, requests, "MPI_Testany"));
  std::vector<WireStatus> st;
  std::vector<bool> done;
  *flag = Complete(CompleteMode::kTestAny, count, requests, st, done);
  *index = MPI_UNDEFINED;
  for (int i = 0; i < count; ++i) {
    if (!done[i]) continue;
    *index = i;
    Fill(status, st[i]);
    break;
  }
  if (*flag && *index == MPI_UNDEFINED) Fill(status, Empty(MPI_ANY_SOURCE));
  return MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return Some(CompleteMode::kTestSome, incount, requests, outcount, indices, statuses,
              "MPI_Testsome");
}

int MPI_Request_free(MPI_Request* request) {
  NICSIM_MPI_TRY(CheckRequests(1, request, "MPI_Request_free"));
  if (*request == MPI_REQUEST_NULL) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "MPI_REQUEST_NULL");
  }
  const RequestInfo* r = C().Request(*request);
  if (r->generalized) {
    // free_fn runs once the program has completed it (now, if it has).
    if (!r->generalized->complete) {
      r->generalized->handle_freed = true;
      *request = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
    }
    const int code = r->generalized->free(r->generalized->extra_state);
    C().FreeRequest(*request);
    *request = MPI_REQUEST_NULL;
    return code;
  }
  // The operation goes on; only the handle goes.
  if (r->active && r->server != kDone) {
    C().Call(Call::kRequestFree, Writer().Put<uint64_t>(r->server));
  }
  C().FreeRequest(*request);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
