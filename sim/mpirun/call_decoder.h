// SPDX-License-Identifier: Apache-2.0
// What a rank's program sends on its channel (ulp/mpi/capi/wire.h), decoded into typed calls
// before anything runs or is allocated. The program is not trusted: a header's length is held
// to a limit before its bytes are read, every field must lie inside the bytes that came and
// fill them exactly, enumerations and flags must be in range, and every size the call server will
// allocate from (sums of counts, a broadcast's length) must add up without overflow and stay
// under the limit. A decoded call's byte ranges point into the arguments it was decoded from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::sim::calls {

/** The most bytes one message of a program may claim, and the most any size in it may ask the
 *  server to allocate (a call's arguments are at most the program's own data). */
inline constexpr uint64_t kMostMessageBytes = uint64_t{1} << 40;

/** An error if `h` cannot begin a message from a program (its length is over the limit). */
Status CheckHeader(const mpi::wire::Header& h);

/** Bytes inside a message's arguments. */
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

/** kInit, kFinalize and kWtime. */
struct NoArgs {};
/** kSleep: how long the program sleeps. */
struct Sleep {
  uint64_t ns = 0;
};
/** The longest sleep: simulated time counts picoseconds in 64 bits. */
inline constexpr uint64_t kMostSleepNs = UINT64_MAX / 1000 / 2;
struct Abort {
  int32_t code = 0;
  std::string why;
};
/** kCommDup, kCommIdup, kCommFree and kBarrier. */
struct OnComm {
  int32_t comm = 0;
};
/** kCommSplit (by color) and kCommSplitType (`color` is the split type). */
struct Split {
  int32_t comm = 0, color = 0, key = 0;
};
struct CreateGroup {
  int32_t comm = 0;
  std::vector<int> members;
};
struct Compare {
  int32_t a = 0, b = 0;
};
/** kSend and kIsend: `tag` is a user tag, `dest` not negative. */
struct Send {
  int32_t comm = 0, dest = 0, tag = 0;
  bool sync = false;
  Bytes data;
};
/** kRecv and kIrecv: `source` and `tag` are ranks and user tags or the wildcards. */
struct Recv {
  int32_t comm = 0, source = 0, tag = 0;
  uint64_t room = 0;
};
struct Complete {
  mpi::wire::CompleteMode mode = mpi::wire::CompleteMode::kWaitAll;
  std::vector<uint64_t> ids;
};
/** kRequestFree and kCancel. */
struct OnRequest {
  uint64_t id = 0;
};
struct Probe {
  int32_t comm = 0, source = 0, tag = 0;
  bool block = false;
};
struct Bcast {
  int32_t comm = 0, root = 0;
  uint64_t bytes = 0;
  Bytes data;
};
/** A reduction's operation: a built-in op on a base type, or the program's own op. */
struct Reduction {
  /** mpi::Op, or mpi::wire::kUserOp. */
  uint8_t op = 0;
  uint32_t user_op = 0;
  /** mpi::Base (built-in ops). */
  uint8_t base = 0;
  uint64_t element_bytes = 0;
  int32_t datatype = 0;
  bool commutes = true;
};
/** kReduce, kAllreduce and kScan (`root` 0 and `exclusive` false where the call has none). */
struct Reduce {
  int32_t comm = 0, root = 0;
  bool exclusive = false;
  Reduction reduction;
  Bytes data;
};
/** Counts in bytes, one per rank, with their sum. */
struct Counts {
  std::vector<size_t> each;
  uint64_t total = 0;
};
struct Gatherv {
  int32_t comm = 0, root = 0;
  Bytes data;
  Counts counts;
};
struct Scatterv {
  int32_t comm = 0, root = 0;
  Counts counts;
  Bytes data;
  uint64_t room = 0;
};
struct Allgatherv {
  int32_t comm = 0;
  Bytes data;
  Counts counts;
};
struct Alltoallv {
  int32_t comm = 0;
  Counts send;
  Bytes data;
  Counts receive;
};
struct ReduceScatter {
  int32_t comm = 0;
  Reduction reduction;
  Counts counts;
  Bytes data;
};
/** kWinCreate: `contents` holds `size` bytes for kCreate, none for the others; a dynamic
 *  window has size 0. */
struct WinCreate {
  int32_t comm = 0;
  mpi::wire::WinFlavor flavor = mpi::wire::WinFlavor::kCreate;
  int32_t disp_unit = 1;
  uint64_t size = 0;
  /** A shared window whose memory holds this kCreate window's, at `offset` (0: none). */
  int32_t within = 0;
  uint64_t offset = 0;
  Bytes contents;
};
/** kWinFree. */
struct OnWin {
  int32_t win = 0;
};
/** kWinAttach (`contents`: the memory attached at `address`) and kWinDetach (none). */
struct WinAttach {
  int32_t win = 0;
  uint64_t address = 0;
  Bytes contents;
};
/** A block of the target's window an operation covers. */
struct WinBlock {
  uint64_t disp = 0;
  uint64_t length = 0;
};
/**
 * kRma: `origin` holds the bytes the blocks take (empty for a get, or a fetch that only
 * reads), `compare` one element (compare-and-swap); the blocks' lengths add up without
 * overflow to at most kMostMessageBytes, each a whole number of `base` elements, and no block
 * ends past the last displacement (a dynamic window's are addresses); a compare-and-swap is
 * one block of one element.
 */
struct Rma {
  int32_t win = 0;
  mpi::wire::RmaKind kind = mpi::wire::RmaKind::kPut;
  int32_t target = 0;
  /** mpi::Op, mpi::wire::kReplaceOp or mpi::wire::kNoOp. */
  uint8_t op = 0;
  uint8_t base = 0;
  Bytes origin;
  Bytes compare;
  std::vector<WinBlock> blocks;
  uint64_t total = 0;
};
/** kWinSync: `target` is -1 where the synchronisation names none. */
struct WinSync {
  int32_t win = 0;
  mpi::wire::WinSync what = mpi::wire::WinSync::kFence;
  int32_t target = -1;
  bool exclusive = false;
  std::vector<int> ranks;
};
/** The program's answer to kApplyOp. */
struct OpResult {
  Bytes result;
};

using Args =
    std::variant<NoArgs, Sleep, Abort, OnComm, Split, CreateGroup, Compare, Send, Recv, Complete,
                 OnRequest, Probe, Bcast, Reduce, Gatherv, Scatterv, Allgatherv, Alltoallv,
                 ReduceScatter, OpResult, WinCreate, OnWin, WinAttach, Rma, WinSync>;

/**
 * The arguments of one message whose header named `call`, or an error saying what is wrong
 * with them (the caller names the rank). `args` must outlive the result.
 */
Result<Args> Decode(mpi::wire::Call call, const std::vector<uint8_t>& args);

}  // namespace nicsim::sim::calls
