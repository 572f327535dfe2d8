// SPDX-License-Identifier: Apache-2.0
// The conversation between a rank's program (libnicsim_mpi, in the program's process) and the
// simulator that serves its MPI calls (sim/mpirun), over one channel per rank: two shared-memory
// lanes (shared_lanes.h) for the messages that fit them and a stream socket (stream_io.h) for
// longer ones, descriptors and the rank's end.
//
// The program sends a call: a Header, then `bytes` of arguments. The simulator runs it on the
// rank's mpi::Mpi, which is simulated time passing, and answers with a kReply of the results.
// Only one side runs at a time: the program waits for the reply, and the simulator waits for
// the program's next call; while serving a reduction with the program's own op, the simulator
// sends kApplyOp and the program answers kOpResult before the reply comes.
//
// Data always travels packed (the program packs and places its datatypes); integers are the
// machine's own (both ends are on one host). Arguments, in order, per call:
//   kInit        -                                -> i32 rank, i32 size, str processor name
//   kFinalize    -                                -> -
//   kAbort       i32 code, str message            (no reply: the run ends)
//   kWtime       -                                -> f64 seconds
//   kSleep       u64 nanoseconds                  -> - (the program's sleep: simulated time passes)
//   kCommDup     i32 comm                         -> made
//   kCommIdup    i32 comm                         -> made (no message when it can: Mpi::Idup)
//   kCommSplit   i32 comm, i32 color, i32 key     -> made
//   kCommSplitType i32 comm, i32 split type, i32 key -> made (by node for MPI_COMM_TYPE_SHARED)
//   kCommCreateGroup i32 comm, u32 n, n x i32 world rank -> made (collective over the n only)
//   kCommFree    i32 comm                         -> -
//   kCommCompare i32 comm, i32 other              -> i32 MPI_IDENT.. MPI_UNEQUAL
//   kSend        i32 comm, i32 dest, i32 tag, u8 sync, blob data   -> -
//   kIsend       i32 comm, i32 dest, i32 tag, u8 sync, blob data   -> u64 request
//   kRecv        i32 comm, i32 source, i32 tag, u64 room           -> status, blob data
//   kIrecv       i32 comm, i32 source, i32 tag, u64 room           -> u64 request
//   kComplete    u8 mode, u32 n, n x u64 request (0: inactive)
//                -> u32 k, k x (u32 index, status, blob data): the requests that completed
//   kRequestFree u64 request                      -> -
//   kCancel      u64 request                      -> u8 cancelled (a receive nothing matched)
//   kProbe       i32 comm, i32 source, i32 tag, u8 block            -> u8 found, status
//   kBarrier     i32 comm                                           -> -
//   kBcast       i32 comm, i32 root, u64 bytes, blob data (root)    -> blob data
//   kReduce      i32 comm, i32 root, reduction, blob data           -> blob result (root)
//   kAllreduce   i32 comm, reduction, blob data                     -> blob result
//   kGatherv     i32 comm, i32 root, blob data, counts (root)       -> blob all (root)
//   kScatterv    i32 comm, i32 root, counts (root), blob all (root), u64 bytes -> blob data
//   kAllgatherv  i32 comm, blob data, counts                        -> blob all
//   kAlltoallv   i32 comm, counts send, blob data, counts receive   -> blob all
//   kReduceScatter i32 comm, reduction, counts, blob data           -> blob mine
//   kScan        i32 comm, u8 exclusive, reduction, blob data       -> blob result
//   kWinCreate   i32 comm, u8 WinFlavor, i32 disp unit, u64 size, i32 within, u64 offset, blob
//                contents (kCreate only, and not `within` a shared window, whose memory at
//                `offset` this window's is: then both ends use that memory, with no copy)
//                -> i32 window, i32 image (0: none, kDynamic and kShared), u32 n, n x (u64
//                size, i32 disp unit) of every member; for kShared, one byte follows the reply
//                carrying the descriptor of the memory all members map, theirs back to back by
//                rank (stream_io.h's SendDescriptor), or the reply fails with
//                MPI_ERR_RMA_SHARED when the members are not all on one node
//   kWinAttach   i32 window, u64 address, blob contents             -> i32 image
//   kWinDetach   i32 window, u64 address                            -> -
//   kWinFree     i32 window    -> blob: the window's last changes (no other message carries
//                its changes either way: the program may have freed its memory already)
//   kRma         i32 window, u8 RmaKind, i32 target, u8 op, u8 base, blob origin, blob compare,
//                u32 n, n x (u64 disp, u64 length): the target's blocks, in packed order
//                -> u64 result (0: none; else its bytes come with the epoch's end: kWinSync)
//   kWinSync     i32 window, u8 WinSync, i32 target, u8 exclusive, u32 n, n x i32 rank
//                -> u8 done (kTest), u32 k, k x (u64 result, blob bytes)
// where made = i32 new comm (0: none), i32 rank, u32 n, n x i32 world rank of each member;
// status = i32 source, i32 tag, u64 bytes, u8 flags (1: truncated, 2: cancelled); blob = u64
// length then the bytes; str = a blob of characters; counts = u32 n then n x u64; reduction =
// u8 op (kUserOp for the program's own), u32 user op, u8 base, u64 element bytes, i32
// datatype, u8 commutes.
//   kApplyOp     i32 user op, i32 datatype, u64 count, blob a, blob b  (to the program)
//   kOpResult    blob op(a, b)                                         (from the program)
// Every reply starts with i32 code: MPI_SUCCESS, or the error class of a call that failed. A
// call whose header has kNoReply in `flags` (kSend only) gets no reply.
//
// A program with windows and its simulator each hold a copy of every window's memory (the
// program's loads and stores, the simulator's puts and gets): an image, one per window or per
// memory attached to a dynamic window, named by the simulator's image number. A message whose
// header has kWindowChanges in `flags` begins with the changes to those copies since the two
// ends last agreed (u64 length, then window_image.h's section), before its arguments or
// results: the program's stores go with each call, the other ranks' puts come back with each
// reply.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace nicsim::mpi::wire {

enum class Call : uint32_t {
  kInit = 1,
  kFinalize,
  kAbort,
  kWtime,
  kCommDup,
  kCommSplit,
  kCommFree,
  kCommCompare,
  kSend,
  kIsend,
  kRecv,
  kIrecv,
  kComplete,
  kRequestFree,
  kProbe,
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGatherv,
  kScatterv,
  kAllgatherv,
  kAlltoallv,
  kReduceScatter,
  kScan,
  kCommSplitType,
  kCommCreateGroup,
  kCancel,
  kCommIdup,
  kWinCreate,
  kWinFree,
  kRma,
  kWinSync,
  kWinAttach,
  kWinDetach,
  kSleep,
  // From the simulator.
  kReply = 100,
  kApplyOp,
  // The program's answer to kApplyOp.
  kOpResult,
};

/** What kComplete waits for, over the requests it lists. */
enum class CompleteMode : uint8_t { kWaitAll, kWaitAny, kWaitSome, kTestAll, kTestAny, kTestSome };

/** The `op` of a reduction that is the program's own (MPI_Op_create). */
inline constexpr uint8_t kUserOp = 0xFF;

/** How a kWinCreate window gets its memory: the program's, the simulator's, attached later,
 *  or shared by the members' processes (MPI_Win_create, MPI_Win_allocate,
 *  MPI_Win_create_dynamic, MPI_Win_allocate_shared). */
enum class WinFlavor : uint8_t { kCreate, kAllocate, kDynamic, kShared };

/** What a kRma call does at its target. */
enum class RmaKind : uint8_t { kPut, kGet, kAccumulate, kGetAccumulate, kCompareSwap };
/** Whether a kRma call of `kind` carries origin bytes (a fetch with MPI_NO_OP, `no_op`, only
 *  reads), and whether bytes come back from its target. */
inline bool CarriesOrigin(RmaKind kind, bool no_op) {
  return kind != RmaKind::kGet && !(kind == RmaKind::kGetAccumulate && no_op);
}
inline bool Fetches(RmaKind kind) { return kind != RmaKind::kPut && kind != RmaKind::kAccumulate; }

/** The `op` of an accumulate that replaces the target's elements (MPI_REPLACE), or leaves
 *  them (MPI_NO_OP, fetching only); other values are an mpi::Op. */
inline constexpr uint8_t kReplaceOp = 0xFE;
inline constexpr uint8_t kNoOp = 0xFD;

/** The synchronisation a kWinSync call runs on its window. */
enum class WinSync : uint8_t {
  kFence,
  kLock,
  kUnlock,
  kFlush,
  kLockAll,
  kUnlockAll,
  kFlushAll,
  kPost,
  kStart,
  kComplete,
  kWait,
  kTest,
  kSync,
  /** A request-based operation's completion: a flush at the target while a passive epoch is
   *  open there (else the epoch's end completed it already). */
  kRequest,
};
inline constexpr uint8_t kWinSyncLast = static_cast<uint8_t>(WinSync::kRequest);

/** Header flags. kNoReply: a call the simulator does not answer (an MPI_Send of a program
 *  with no windows, whose reply would carry nothing): the program goes on at once. */
inline constexpr uint32_t kWindowChanges = 1;
inline constexpr uint32_t kNoReply = 2;

/** Environment variables the simulator gives each program it starts: its channel's socket,
 *  the descriptor of the lanes' shared memory and of the eventfd that wakes the simulator,
 *  whether to spin before sleeping on a reply ("0": no, the rank shares the simulator's CPU),
 *  whether to measure the CPU time between calls ("0": no, it counts for nothing), and the
 *  simulator's PID (the program dies with it). */
inline constexpr const char* kFdEnv = "NICSIM_MPI_FD";
inline constexpr const char* kLanesEnv = "NICSIM_MPI_LANES";
inline constexpr const char* kBellEnv = "NICSIM_MPI_BELL";
inline constexpr const char* kSpinEnv = "NICSIM_MPI_SPIN";
inline constexpr const char* kComputeEnv = "NICSIM_MPI_COMPUTE";
inline constexpr const char* kParentEnv = "NICSIM_MPI_PARENT";

struct Header {
  uint32_t call = 0;
  /** kWindowChanges, kNoReply, or 0. */
  uint32_t flags = 0;
  /** Bytes of arguments after the header. */
  uint64_t bytes = 0;
  /** CPU nanoseconds the program spent since its previous call returned (calls only). */
  uint64_t compute_ns = 0;
};

/** The header of a message of `args` bytes of arguments after `changes` bytes of window
 *  changes (none: 0), which go first with their length. */
inline Header HeaderOf(Call call, uint64_t changes, uint64_t args, uint64_t compute_ns) {
  Header h;
  h.call = static_cast<uint32_t>(call);
  h.flags = changes > 0 ? kWindowChanges : 0;
  h.bytes = (changes > 0 ? sizeof(uint64_t) + changes : 0) + args;
  h.compute_ns = compute_ns;
  return h;
}

/** Appends arguments. */
class Writer {
 public:
  template <typename T>
  Writer& Put(T value) {
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
    return *this;
  }
  Writer& Blob(const void* data, size_t n) {
    Put<uint64_t>(n);
    const size_t at = out_.size();
    out_.resize(at + n);
    if (n > 0) std::memcpy(out_.data() + at, data, n);
    return *this;
  }
  Writer& Blob(const std::vector<uint8_t>& v) { return Blob(v.data(), v.size()); }
  Writer& Str(const std::string& s) { return Blob(s.data(), s.size()); }
  Writer& Counts(const std::vector<size_t>& counts) {
    Put<uint32_t>(static_cast<uint32_t>(counts.size()));
    for (size_t c : counts) Put<uint64_t>(c);
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t>& bytes() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

/**
 * Reads arguments back. Reading past the end (a malformed message) reads zeros and sets
 * failed(): the reader checks once at the end, not after every field.
 */
class Reader {
 public:
  Reader(const uint8_t* data, size_t n) : data_(data), left_(n) {}
  template <typename T>
  T Get() {
    T value{};
    if (left_ < sizeof(T)) {
      failed_ = true;
      left_ = 0;
      return value;
    }
    std::memcpy(&value, data_, sizeof(T));
    data_ += sizeof(T);
    left_ -= sizeof(T);
    return value;
  }
  /** A blob: where its bytes are (valid while the message is) and how many. */
  std::pair<const uint8_t*, size_t> Blob() {
    const auto n = Get<uint64_t>();
    if (n > left_) {
      failed_ = true;
      left_ = 0;
      return {data_, 0};
    }
    const uint8_t* at = data_;
    data_ += n;
    left_ -= n;
    return {at, static_cast<size_t>(n)};
  }
  std::vector<uint8_t> BlobCopy() {
    const auto [at, n] = Blob();
    return std::vector<uint8_t>(at, at + n);
  }
  std::string Str() {
    const auto [at, n] = Blob();
    return std::string(reinterpret_cast<const char*>(at), n);
  }
  std::vector<size_t> Counts() {
    const auto n = Get<uint32_t>();
    if (n > left_ / sizeof(uint64_t)) {
      failed_ = true;
      left_ = 0;
      return {};
    }
    std::vector<size_t> counts(n);
    for (auto& c : counts) c = static_cast<size_t>(Get<uint64_t>());
    return counts;
  }
  bool failed() const { return failed_; }
  /** Bytes not read yet. */
  size_t left() const { return left_; }

 private:
  const uint8_t* data_;
  size_t left_;
  bool failed_ = false;
};

}  // namespace nicsim::mpi::wire

namespace nicsim::mpi::wire {

/** The MPI calls a wire call serves, for messages and call counts. */
inline const char* CallName(Call call) {
  switch (call) {
    case Call::kInit:
      return "MPI_Init";
    case Call::kFinalize:
      return "MPI_Finalize";
    case Call::kAbort:
      return "MPI_Abort";
    case Call::kWtime:
      return "MPI_Wtime";
    case Call::kCommDup:
      return "MPI_Comm_dup";
    case Call::kCommSplit:
      return "MPI_Comm_split";
    case Call::kCommFree:
      return "MPI_Comm_free";
    case Call::kCommCompare:
      return "MPI_Comm_compare";
    case Call::kSend:
      return "MPI_Send";
    case Call::kIsend:
      return "MPI_Isend";
    case Call::kRecv:
      return "MPI_Recv";
    case Call::kIrecv:
      return "MPI_Irecv";
    case Call::kComplete:
      return "MPI_Wait/MPI_Test";
    case Call::kRequestFree:
      return "MPI_Request_free";
    case Call::kProbe:
      return "MPI_Probe";
    case Call::kBarrier:
      return "MPI_Barrier";
    case Call::kBcast:
      return "MPI_Bcast";
    case Call::kReduce:
      return "MPI_Reduce";
    case Call::kAllreduce:
      return "MPI_Allreduce";
    case Call::kGatherv:
      return "MPI_Gather";
    case Call::kScatterv:
      return "MPI_Scatter";
    case Call::kAllgatherv:
      return "MPI_Allgather";
    case Call::kAlltoallv:
      return "MPI_Alltoall";
    case Call::kReduceScatter:
      return "MPI_Reduce_scatter";
    case Call::kScan:
      return "MPI_Scan";
    case Call::kCommSplitType:
      return "MPI_Comm_split_type";
    case Call::kCommCreateGroup:
      return "MPI_Comm_create_group";
    case Call::kCancel:
      return "MPI_Cancel";
    case Call::kCommIdup:
      return "MPI_Comm_idup";
    case Call::kWinCreate:
      return "MPI_Win_create";
    case Call::kWinFree:
      return "MPI_Win_free";
    case Call::kRma:
      return "MPI_Put/MPI_Get/MPI_Accumulate";
    case Call::kWinSync:
      return "MPI_Win_fence/lock/unlock/flush/post/start/complete/wait";
    case Call::kWinAttach:
      return "MPI_Win_attach";
    case Call::kWinDetach:
      return "MPI_Win_detach";
    case Call::kSleep:
      return "sleep";
    default:
      return nullptr;
  }
}

}  // namespace nicsim::mpi::wire
