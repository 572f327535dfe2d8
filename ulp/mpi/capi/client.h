// SPDX-License-Identifier: Apache-2.0
// The state of the MPI library inside a rank's program: its channel to the simulator (which
// runs every call), and the handles it gave out (communicators, requests, datatypes, ops).
// Arguments are checked here, before a call travels, so an erroneous call costs no
// simulated time and returns the error class MPI defines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/capi/types.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::capi {

struct CommInfo {
  bool valid = false;
  int rank = 0;
  int size = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
};

/** A nonblocking operation of the program's. */
struct RequestInfo {
  bool valid = false;
  /** The simulator's request (0: none, e.g. with MPI_PROC_NULL). */
  uint64_t server = 0;
  bool recv = false;
  void* buf = nullptr;
  int count = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  /** A receive's datatype as it was when the receive started: the program may free the
   *  handle before the receive completes (MPI keeps the type alive until then). */
  std::shared_ptr<const TypeInfo> recv_type;
};

struct UserOp {
  bool valid = false;
  MPI_User_function* fn = nullptr;
  bool commute = true;
};

/** A call's reply: its error code, then its results. */
struct Reply {
  int code = MPI_SUCCESS;
  wire::Reader results;
};

class Client {
 public:
  /** The process's library state. */
  static Client& Get();

  bool initialized = false;
  bool finalized = false;
  int world_rank = 0;
  int world_size = 0;
  std::string processor_name;
  TypeTable types;
  std::vector<CommInfo> comms;
  std::vector<RequestInfo> requests;
  std::vector<UserOp> ops;

  /** Connects to the simulator that started this process; exits the process if none did. */
  void Connect();
  /** Sends a call and waits for its reply (serving the simulator's user-op requests). */
  Reply Call(wire::Call call, const wire::Writer& args);
  /** Tells the simulator the program aborts, then exits the process with `code`. */
  [[noreturn]] void Abort(int code, const std::string& message);

  const CommInfo* Comm(MPI_Comm c) const {
    return c > 0 && static_cast<size_t>(c) < comms.size() && comms[c].valid ? &comms[c] : nullptr;
  }
  /** Records a communicator the simulator made (handle `c`). */
  void AddComm(MPI_Comm c, int rank, int size, MPI_Errhandler errhandler);
  MPI_Request AddRequest(RequestInfo r);
  RequestInfo* Request(MPI_Request r) {
    return r > 0 && static_cast<size_t>(r) < requests.size() && requests[r].valid ? &requests[r]
                                                                                 : nullptr;
  }
  void FreeRequest(MPI_Request r) { requests[r] = RequestInfo{}; free_requests_.push_back(r); }

  /**
   * An error in `call` on `comm`: returned (MPI_ERRORS_RETURN) or fatal (the default): then
   * the message goes to stderr and the run ends, naming the rank and the call.
   */
  int Error(MPI_Comm comm, int code, const char* call, const std::string& what);

 private:
  Client() = default;
  void Serve(wire::Reader args);
  int fd_ = -1;
  std::vector<uint8_t> reply_;
  /** CPU time of the process when the previous call returned. */
  uint64_t returned_cpu_ns_ = 0;
  std::vector<MPI_Request> free_requests_;
};

/** The process's client, as every C entry point reaches it. */
inline Client& C() { return Client::Get(); }

/** MPI's name of an error class, for messages and MPI_Error_string. */
const char* ErrorClassText(int code);

}  // namespace nicsim::mpi::capi
