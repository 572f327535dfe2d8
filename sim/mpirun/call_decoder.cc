// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/call_decoder.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "ulp/mpi/datatype.h"
#include "ulp/mpi/limits.h"

namespace nicsim::sim::calls {
namespace {

using mpi::wire::Call;
using mpi::wire::CompleteMode;

/**
 * Reads the fields of one message in order. The first field that does not fit or is out of
 * range records why; the fields after it read as zeros, and Finish reports the first error
 * (or bytes left over).
 */
class Fields {
 public:
  explicit Fields(const std::vector<uint8_t>& args) : in_(args.data(), args.size()) {}

  int32_t I32() { return in_.Get<int32_t>(); }
  uint32_t U32() { return in_.Get<uint32_t>(); }
  uint64_t U64() { return in_.Get<uint64_t>(); }
  uint8_t U8() { return in_.Get<uint8_t>(); }
  /** A flag: 0 or 1. */
  bool Flag(const char* what) {
    const uint8_t v = U8();
    if (v > 1) Reject(fmt::format("{} flag {}", what, v));
    return v != 0;
  }
  Bytes Blob() {
    const auto [at, n] = in_.Blob();
    return Bytes{at, n};
  }
  std::string Str() { return in_.Str(); }
  /** Bytes not read yet. */
  size_t left() const { return in_.left(); }

  /** A size the server allocates from: at most kMostMessageBytes. */
  uint64_t Size(const char* what) {
    const uint64_t n = U64();
    if (n > kMostMessageBytes) Reject(fmt::format("{} of {} bytes", what, n));
    return n;
  }
  /** A rank of the communicator, or the root of a collective: not negative. */
  int32_t Rank(const char* what) {
    const int32_t r = I32();
    if (r < 0) Reject(fmt::format("{} {}", what, r));
    return r;
  }
  /** A source: a rank or MPI_ANY_SOURCE. */
  int32_t Source() {
    const int32_t s = I32();
    if (s < mpi::kAnySource) Reject(fmt::format("source {}", s));
    return s;
  }
  /** A user tag, or MPI_ANY_TAG where `wildcard`. */
  int32_t Tag(bool wildcard) {
    const int32_t t = I32();
    if (t < (wildcard ? mpi::kAnyTag : 0) || t > mpi::kTagUb) Reject(fmt::format("tag {}", t));
    return t;
  }
  /** u32 n, then n values of `T`: n no more than the bytes left can hold. */
  template <typename T>
  std::vector<T> Array(const char* what) {
    const uint32_t n = U32();
    if (n > in_.left() / sizeof(T)) {
      Reject(fmt::format("{} {} claimed where {} bytes are left", n, what, in_.left()));
      return {};
    }
    std::vector<T> values(n);
    for (T& v : values) v = in_.Get<T>();
    return values;
  }
  /** Byte counts, one per rank: their sum must not pass kMostMessageBytes. */
  Counts CountsOf(const char* what) {
    Counts c;
    for (uint64_t n : Array<uint64_t>(what)) {
      if (n > kMostMessageBytes - c.total) {
        Reject(fmt::format("{} adding up to more than {} bytes", what, kMostMessageBytes));
        return {};
      }
      c.total += n;
      c.each.push_back(static_cast<size_t>(n));
    }
    return c;
  }
  Reduction ReductionOf() {
    Reduction r;
    r.op = U8();
    r.user_op = U32();
    r.base = U8();
    r.element_bytes = U64();
    r.datatype = I32();
    r.commutes = Flag("commutes");
    if (r.op != mpi::wire::kUserOp) {
      if (r.op >= mpi::kOpCount) Reject(fmt::format("reduction op {}", r.op));
      if (r.base >= mpi::kBaseCount) Reject(fmt::format("reduction base type {}", r.base));
    }
    return r;
  }
  CompleteMode Mode() {
    const uint8_t m = U8();
    if (m > static_cast<uint8_t>(CompleteMode::kTestSome)) Reject(fmt::format("mode {}", m));
    return static_cast<CompleteMode>(m);
  }

  void Reject(std::string why) {
    if (!error_) error_ = std::move(why);
  }
  /** The call's arguments, if they were all there, in range, and nothing more. */
  Result<Args> Finish(Args args) {
    if (error_) return Status::Error(*error_);
    if (in_.failed()) return Status::Error("the arguments end early");
    if (in_.left() > 0)
      return Status::Error(fmt::format("{} bytes after the arguments", in_.left()));
    return args;
  }

 private:
  mpi::wire::Reader in_;
  std::optional<std::string> error_;
};

/** kRma's arguments (call_decoder.h's Rma says what must hold). */
Result<Args> DecodeRma(Fields& f) {
  using mpi::wire::RmaKind;
  Rma r;
  r.win = f.I32();
  const uint8_t kind = f.U8();
  if (kind > static_cast<uint8_t>(RmaKind::kCompareSwap)) f.Reject(fmt::format("kind {}", kind));
  r.kind = static_cast<RmaKind>(kind);
  r.target = f.Rank("target");
  r.op = f.U8();
  r.base = f.U8();
  if (r.op >= mpi::kOpCount && r.op != mpi::wire::kReplaceOp && r.op != mpi::wire::kNoOp) {
    f.Reject(fmt::format("op {}", r.op));
  }
  if (r.base >= mpi::kBaseCount) {
    f.Reject(fmt::format("base type {}", r.base));
    r.base = 0;
  }
  r.origin = f.Blob();
  r.compare = f.Blob();
  const size_t element = mpi::BaseSize(static_cast<mpi::Base>(r.base));
  const uint32_t n = f.U32();
  if (n > f.left() / (2 * sizeof(uint64_t))) {
    f.Reject(fmt::format("{} blocks claimed where {} bytes are left", n, f.left()));
    return f.Finish(std::move(r));
  }
  for (uint32_t i = 0; i < n; ++i) {
    WinBlock b;
    b.disp = f.U64();
    b.length = f.U64();
    if (b.length > kMostMessageBytes - r.total || b.disp > ~uint64_t{0} - b.length) {
      f.Reject(fmt::format("blocks adding up to more than {} bytes", kMostMessageBytes));
      break;
    }
    if (r.kind != RmaKind::kPut && r.kind != RmaKind::kGet && b.length % element != 0) {
      f.Reject(fmt::format("a block of {} bytes of {}-byte elements", b.length, element));
    }
    r.total += b.length;
    r.blocks.push_back(b);
  }
  if (r.origin.size != (mpi::wire::CarriesOrigin(r.kind, r.op == mpi::wire::kNoOp) ? r.total : 0)) {
    f.Reject(fmt::format("{} origin bytes for blocks of {}", r.origin.size, r.total));
  }
  if (r.compare.size != (r.kind == RmaKind::kCompareSwap ? r.total : 0)) {
    f.Reject(fmt::format("{} compare bytes", r.compare.size));
  }
  if (r.kind == RmaKind::kCompareSwap && (r.blocks.size() != 1 || r.total != element)) {
    f.Reject(fmt::format("a compare-and-swap of {} bytes in {} blocks", r.total, r.blocks.size()));
  }
  return f.Finish(std::move(r));
}

}  // namespace

Status CheckHeader(const mpi::wire::Header& h) {
  if (h.bytes > kMostMessageBytes)
    return Status::Error(fmt::format("a message of {} bytes", h.bytes));
  return Status();
}

Result<Args> Decode(Call call, const std::vector<uint8_t>& args) {
  Fields f(args);
  switch (call) {
    case Call::kInit:
    case Call::kFinalize:
    case Call::kWtime:
      return f.Finish(NoArgs{});
    case Call::kSleep: {
      Sleep a;
      a.ns = f.U64();
      if (a.ns > kMostSleepNs) return Status::Error(fmt::format("a sleep of {} ns", a.ns));
      return f.Finish(a);
    }
    case Call::kAbort: {
      Abort a;
      a.code = f.I32();
      a.why = f.Str();
      return f.Finish(std::move(a));
    }
    case Call::kCommDup:
    case Call::kCommIdup:
    case Call::kCommFree:
    case Call::kBarrier:
      return f.Finish(OnComm{f.I32()});
    case Call::kCommSplit:
    case Call::kCommSplitType: {
      Split s;
      s.comm = f.I32();
      s.color = f.I32();
      s.key = f.I32();
      return f.Finish(s);
    }
    case Call::kCommCreateGroup: {
      CreateGroup g;
      g.comm = f.I32();
      g.members = f.Array<int32_t>("members");
      if (g.members.empty()) f.Reject("a group of no members");
      return f.Finish(std::move(g));
    }
    case Call::kCommCompare: {
      Compare c;
      c.a = f.I32();
      c.b = f.I32();
      return f.Finish(c);
    }
    case Call::kSend:
    case Call::kIsend: {
      Send s;
      s.comm = f.I32();
      s.dest = f.Rank("destination");
      s.tag = f.Tag(/*wildcard=*/false);
      s.sync = f.Flag("synchronous");
      s.data = f.Blob();
      return f.Finish(s);
    }
    case Call::kRecv:
    case Call::kIrecv: {
      Recv r;
      r.comm = f.I32();
      r.source = f.Source();
      r.tag = f.Tag(/*wildcard=*/true);
      // The room is only reserved, never filled, until a message matches (the server's
      // allocation may fail: the call then fails with MPI_ERR_NO_MEM).
      r.room = f.U64();
      return f.Finish(r);
    }
    case Call::kComplete: {
      Complete c;
      c.mode = f.Mode();
      c.ids = f.Array<uint64_t>("requests");
      return f.Finish(std::move(c));
    }
    case Call::kRequestFree:
    case Call::kCancel:
      return f.Finish(OnRequest{f.U64()});
    case Call::kProbe: {
      Probe p;
      p.comm = f.I32();
      p.source = f.Source();
      p.tag = f.Tag(/*wildcard=*/true);
      p.block = f.Flag("blocking");
      return f.Finish(p);
    }
    case Call::kBcast: {
      Bcast b;
      b.comm = f.I32();
      b.root = f.Rank("root");
      b.bytes = f.Size("a broadcast");
      b.data = f.Blob();
      return f.Finish(b);
    }
    case Call::kReduce:
    case Call::kAllreduce:
    case Call::kScan: {
      Reduce r;
      r.comm = f.I32();
      if (call == Call::kReduce) r.root = f.Rank("root");
      if (call == Call::kScan) r.exclusive = f.Flag("exclusive");
      r.reduction = f.ReductionOf();
      r.data = f.Blob();
      return f.Finish(r);
    }
    case Call::kGatherv: {
      Gatherv g;
      g.comm = f.I32();
      g.root = f.Rank("root");
      g.data = f.Blob();
      g.counts = f.CountsOf("counts");
      return f.Finish(std::move(g));
    }
    case Call::kScatterv: {
      Scatterv s;
      s.comm = f.I32();
      s.root = f.Rank("root");
      s.counts = f.CountsOf("counts");
      s.data = f.Blob();
      s.room = f.Size("a receive");
      return f.Finish(std::move(s));
    }
    case Call::kAllgatherv: {
      Allgatherv g;
      g.comm = f.I32();
      g.data = f.Blob();
      g.counts = f.CountsOf("counts");
      return f.Finish(std::move(g));
    }
    case Call::kAlltoallv: {
      Alltoallv a;
      a.comm = f.I32();
      a.send = f.CountsOf("send counts");
      a.data = f.Blob();
      a.receive = f.CountsOf("receive counts");
      return f.Finish(std::move(a));
    }
    case Call::kReduceScatter: {
      ReduceScatter r;
      r.comm = f.I32();
      r.reduction = f.ReductionOf();
      r.counts = f.CountsOf("counts");
      r.data = f.Blob();
      return f.Finish(std::move(r));
    }
    case Call::kWinCreate: {
      using mpi::wire::WinFlavor;
      WinCreate w;
      w.comm = f.I32();
      const uint8_t flavor = f.U8();
      if (flavor > static_cast<uint8_t>(WinFlavor::kShared)) {
        f.Reject(fmt::format("window flavor {}", flavor));
      }
      w.flavor = static_cast<WinFlavor>(flavor);
      w.disp_unit = f.I32();
      if (w.disp_unit <= 0) f.Reject(fmt::format("displacement unit {}", w.disp_unit));
      w.size = f.Size("a window");
      w.within = f.I32();
      w.offset = f.Size("an offset");
      w.contents = f.Blob();
      if (w.within != 0 && w.flavor != WinFlavor::kCreate) {
        f.Reject("a window within a shared one that is not made of the program's memory");
      }
      const bool copied = w.flavor == WinFlavor::kCreate && w.within == 0;
      if (w.contents.size != (copied ? w.size : 0)) {
        f.Reject(fmt::format("{} bytes of contents for a window of {}", w.contents.size, w.size));
      }
      if (w.flavor == WinFlavor::kDynamic && w.size != 0) {
        f.Reject(fmt::format("a dynamic window of {} bytes", w.size));
      }
      return f.Finish(w);
    }
    case Call::kWinFree:
      return f.Finish(OnWin{f.I32()});
    case Call::kWinAttach:
    case Call::kWinDetach: {
      WinAttach a;
      a.win = f.I32();
      a.address = f.U64();
      if (call == Call::kWinAttach) a.contents = f.Blob();
      if (a.contents.size > ~uint64_t{0} - a.address) {
        f.Reject(fmt::format("{} bytes attached at {:#x}", a.contents.size, a.address));
      }
      return f.Finish(a);
    }
    case Call::kRma:
      return DecodeRma(f);
    case Call::kWinSync: {
      WinSync w;
      w.win = f.I32();
      const uint8_t what = f.U8();
      if (what > mpi::wire::kWinSyncLast) f.Reject(fmt::format("synchronisation {}", what));
      w.what = static_cast<mpi::wire::WinSync>(what);
      w.target = f.I32();
      if (w.target < -1) f.Reject(fmt::format("target {}", w.target));
      w.exclusive = f.Flag("exclusive");
      w.ranks = f.Array<int32_t>("ranks");
      for (int r : w.ranks) {
        if (r < 0) f.Reject(fmt::format("rank {}", r));
      }
      return f.Finish(std::move(w));
    }
    case Call::kOpResult:
      return f.Finish(OpResult{f.Blob()});
    case Call::kReply:
    case Call::kApplyOp:
      break;
  }
  return Status::Error(
      fmt::format("call {} is not one a program sends", static_cast<uint32_t>(call)));
}

}  // namespace nicsim::sim::calls
