// SPDX-License-Identifier: Apache-2.0
// The state of the MPI library inside a rank's program: its channel to the simulator (which
// runs every call), and the handles it gave out (communicators, requests, datatypes, ops).
// Arguments are checked here, before a call travels, so an erroneous call costs no
// simulated time and returns the error class MPI defines.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/capi/stream_io.h"
#include "ulp/mpi/capi/types.h"
#include "ulp/mpi/capi/win_info.h"
#include "ulp/mpi/capi/shared_lanes.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::capi {

struct CommInfo {
  bool valid = false;
  int rank = 0;
  int size = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  /** The world rank of each member, by rank (an intercommunicator's local group). */
  std::vector<int> members;
  /**
   * An intercommunicator: `remote` is the other group. The simulator knows it as one
   * communicator of both groups (the group whose leader has the lower world rank first), in
   * which the remote group's ranks start at `remote_offset`: point-to-point ranks are
   * translated to and from it.
   */
  bool inter = false;
  std::vector<int> remote;
  int remote_offset = 0;
  /** An intercommunicator's collectives run on a communicator of their own (the simulator's
   *  handle; ranks as in the one of both groups), apart from its point-to-point messages. */
  MPI_Comm collectives = MPI_COMM_NULL;
  /** The size of the group a peer rank names: the remote group's, or the communicator's. */
  int peer_size() const { return inter ? static_cast<int>(remote.size()) : size; }
  /** A peer rank as the simulator's communicator numbers it (wildcards unchanged). */
  int ToServer(int peer) const { return inter && peer >= 0 ? peer + remote_offset : peer; }
  /** A source rank from the simulator as the program's communicator numbers it. */
  int FromServer(int source) const {
    return inter && source >= 0 ? source - remote_offset : source;
  }
};

/** A group: world ranks, by rank in the group. */
struct GroupInfo {
  bool valid = false;
  std::vector<int> members;
};

/** The rank of world rank `world` among `members` (world ranks by rank), or MPI_UNDEFINED. */
inline int RankIn(const std::vector<int>& members, int world) {
  const auto it = std::find(members.begin(), members.end(), world);
  return it == members.end() ? MPI_UNDEFINED : static_cast<int>(it - members.begin());
}
inline bool Contains(const std::vector<int>& members, int world) {
  return RankIn(members, world) != MPI_UNDEFINED;
}

/** What a persistent request (MPI_Send_init, MPI_Recv_init ...) starts each time. */
struct PersistentArgs {
  enum class Kind : uint8_t { kSend, kSsend, kRsend, kBsend, kRecv };
  Kind kind = Kind::kSend;
  const void* buf = nullptr;
  int count = 0;
  /** The datatype as it was made: the program may free the handle while the request lives. */
  std::shared_ptr<const TypeInfo> type;
  int peer = MPI_PROC_NULL;
  int tag = 0;
};

/** A generalized request's callbacks and state (MPI_Grequest_start). */
struct GeneralizedRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  /** MPI_Grequest_complete was called. */
  bool complete = false;
  /** MPI_Request_free let go of the handle first: free_fn runs when it completes. */
  bool handle_freed = false;
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
  /** A persistent request outlives its completions: inactive until MPI_Start starts it. */
  bool persistent = false;
  bool active = true;
  PersistentArgs args;
  /** Set for a generalized request: the program completes it, the simulator never sees it. */
  std::shared_ptr<GeneralizedRequest> generalized;
  /** A request-based one-sided operation (MPI_Rput ...): its window and target, until a wait
   *  or test completes it there (api_win_sync.cc's CompleteRmaRequest). */
  MPI_Win rma_win = 0;
  int rma_target = 0;
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
  /** The process that initialised MPI (a child it forks shares the channel, not the rank). */
  pid_t initialised_by = 0;
  int world_rank = 0;
  int world_size = 0;
  std::string processor_name;
  /** The thread level MPI_Init_thread provided (MPI_Init: MPI_THREAD_SINGLE). */
  int thread_level = MPI_THREAD_SINGLE;
  TypeTable types;
  std::vector<CommInfo> comms;
  /** Handle 0 is MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY. */
  std::vector<GroupInfo> groups{GroupInfo{}, GroupInfo{true, {}}};
  std::vector<RequestInfo> requests;
  std::vector<UserOp> ops;
  /** By handle (the simulator's); 0 is MPI_WIN_NULL. */
  std::vector<WinInfo> wins;
  /** Results the simulator will send, by its result id. */
  std::map<uint64_t, PendingResult> pending_results;

  /** Connects to the simulator that started this process; exits the process if none did. */
  void Connect();
  /** Sends a call and waits for its reply (serving the simulator's user-op requests); the
   *  windows' changes go with the call and come back with the reply. */
  Reply Call(wire::Call call, const wire::Writer& args);
  /** Sends a call whose reply would say only MPI_SUCCESS without waiting for it (wire.h's
   *  kNoReply), when the program has no windows and the call fits its lane; else as Call.
   *  Returns the call's code. */
  int CallWithoutReply(wire::Call call, const wire::Writer& args);
  /** The descriptor the simulator hands over after a reply (stream_io.h), or -1. */
  int ReceiveDescriptor() { return wire::ReceiveDescriptor(fd_); }
  /** Tells the simulator the program aborts, then exits the process with `code`. */
  [[noreturn]] void Abort(int code, const std::string& message);

  const CommInfo* Comm(MPI_Comm c) const {
    return c > 0 && static_cast<size_t>(c) < comms.size() && comms[c].valid ? &comms[c] : nullptr;
  }
  /** Records a communicator the simulator made (handle `c`) of `members` (world ranks). */
  void AddComm(MPI_Comm c, int rank, std::vector<int> members, MPI_Errhandler errhandler);
  /**
   * Records the communicator a call's reply describes (wire.h's "made"), which inherits
   * `errhandler`; returns its handle, or MPI_COMM_NULL when the call made none.
   */
  MPI_Comm AddMade(wire::Reader& results, MPI_Errhandler errhandler);

  WinInfo* Win(MPI_Win w) {
    return w > 0 && static_cast<size_t>(w) < wins.size() && wins[w].valid ? &wins[w] : nullptr;
  }
  /** An error in `call` on window `win`, through the window's error handler. */
  int WinError(MPI_Win win, int code, const char* call, const std::string& what);

  const GroupInfo* Group(MPI_Group g) const {
    return g > 0 && static_cast<size_t>(g) < groups.size() && groups[g].valid ? &groups[g]
                                                                              : nullptr;
  }
  /** A new group handle for `members` (MPI_GROUP_EMPTY when there are none). */
  MPI_Group AddGroup(std::vector<int> members);
  /** Frees a group handle (MPI_GROUP_EMPTY stays). */
  void FreeGroup(MPI_Group g);
  MPI_Request AddRequest(RequestInfo r);
  RequestInfo* Request(MPI_Request r) {
    return r > 0 && static_cast<size_t>(r) < requests.size() && requests[r].valid ? &requests[r]
                                                                                  : nullptr;
  }
  void FreeRequest(MPI_Request r) {
    requests[r] = RequestInfo{};
    free_requests_.push_back(r);
  }

  /**
   * An error in `call` on `comm`: returned (MPI_ERRORS_RETURN) or fatal (the default): then
   * the message goes to stderr and the run ends, naming the rank and the call.
   */
  int Error(MPI_Comm comm, int code, const char* call, const std::string& what);
  /** The end of an erroneous call under MPI_ERRORS_ARE_FATAL: the message, then the run ends. */
  [[noreturn]] void Fatal(int code, const char* call, const std::string& what);

 private:
  Client() = default;
  void Serve(wire::Reader args);
  /** The windows' changes since the simulator and this process last agreed (none: empty). */
  std::vector<uint8_t> WindowChanges();
  /** Applies the changes at the front of a reply; false if they are malformed. */
  bool ApplyWindowChanges(wire::Reader& in);
  /** Sends one message to the simulator (its lane, or the socket when it does not fit),
   *  waking it unless `quiet`. */
  wire::Sent Send(const wire::Header& h, const std::vector<uint8_t>& changes,
                  const std::vector<uint8_t>& args, bool quiet);
  /** CPU time the program spent since the previous call returned (0 when not measured). */
  uint64_t ComputeSinceReturn() const;
  /** Some window has an image here (its changes travel with calls and replies). */
  bool HasWindows() const;
  /** Waits for the simulator's next message and takes it into `reply_`; its header. */
  wire::Header Receive();
  /** The channel's socket (long messages, descriptors, aborts). */
  int fd_ = -1;
  /** The lanes shared with the simulator, and the eventfd that wakes it. */
  wire::Lanes* lanes_ = nullptr;
  int bell_ = -1;
  /** Replies taken so far (the replies lane's posted count as this process last saw it). */
  uint32_t replies_seen_ = 0;
  /** Where the next call goes in the calls lane (0 again after each reply). */
  uint64_t calls_at_ = 0;
  std::vector<uint8_t> reply_;
  /** Waits for each reply without sleeping first, as long as replies have been coming fast. */
  wire::Spinner reply_spinner_;
  /** The simulator counts the program's computing between calls (mpi.compute=measured): each
   *  call says how much CPU time passed since the previous one returned. */
  bool measures_compute_ = true;
  /** CPU time of the process when the previous call returned (0: not measured). */
  uint64_t returned_cpu_ns_ = 0;
  std::vector<MPI_Request> free_requests_;
  std::vector<MPI_Group> free_groups_;
};

/** The process's client, as every C entry point reaches it. */
inline Client& C() { return Client::Get(); }

/** MPI's name of an error class, for messages and MPI_Error_string. */
const char* ErrorClassText(int code);

}  // namespace nicsim::mpi::capi
