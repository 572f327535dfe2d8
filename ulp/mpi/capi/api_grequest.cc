// SPDX-License-Identifier: Apache-2.0
// Generalized requests: an operation of the program's own behind an MPI request. The
// simulator never sees one; MPI's wait and test calls (api_p2p.cc) complete it once the
// program has called MPI_Grequest_complete, through its query and free callbacks.
#include <memory>

#include "ulp/mpi/capi/checks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                       MPI_Request* request) {
  if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr || request == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Grequest_start",
                     "a callback or the request is NULL");
  }
  RequestInfo info;
  info.generalized = std::make_shared<GeneralizedRequest>();
  info.generalized->query = query_fn;
  info.generalized->free = free_fn;
  info.generalized->cancel = cancel_fn;
  info.generalized->extra_state = extra_state;
  *request = C().AddRequest(info);
  return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request) {
  RequestInfo* r = C().Request(request);
  if (r == nullptr || !r->generalized || r->generalized->complete) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                     "not a generalized request that is still pending");
  }
  r->generalized->complete = true;
  if (!r->generalized->handle_freed) return MPI_SUCCESS;
  // MPI_Request_free let go of it before: its free callback runs now, and it is gone.
  const int code = r->generalized->free(r->generalized->extra_state);
  C().FreeRequest(request);
  return code;
}

}  // extern "C"
