// SPDX-License-Identifier: Apache-2.0
// MPI's one-sided operations: put, get, the accumulates and their request forms. Each is
// checked here against the target's window (its size and displacement unit, which every
// member learnt when the window was made), the origin's bytes are packed, and the target's
// datatype becomes the list of byte blocks it covers in the target's window, in type-map
// order. The simulator starts one transfer per block; what comes back (a get's bytes, a
// fetching accumulate's old elements) arrives when the epoch ends (api_win_sync.cc).
#include <cstring>
#include <utility>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/reduce_local.h"
#include "ulp/mpi/capi/rma.h"
#include "ulp/mpi/capi/wire_status.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::RmaKind;
using nicsim::mpi::wire::Writer;

namespace {

/** A byte block of the target's window: [disp, disp + length). */
struct Block {
  int64_t disp = 0;
  uint64_t length = 0;
};

/** The blocks `count` items of `t` cover from byte `disp` of a window, adjacent ones joined. */
std::vector<Block> TargetBlocks(const TypeInfo& t, int count, int64_t disp) {
  std::vector<Block> blocks;
  for (int i = 0; i < count; ++i) {
    const int64_t item = disp + static_cast<int64_t>(i) * t.extent;
    for (const Run& run : t.runs) {
      for (size_t k = 0; k < run.count; ++k) {
        const int64_t at = item + run.offset + static_cast<int64_t>(k) * run.stride;
        if (!blocks.empty() &&
            blocks.back().disp + static_cast<int64_t>(blocks.back().length) == at) {
          blocks.back().length += run.length;
        } else if (run.length > 0) {
          blocks.push_back(Block{at, run.length});
        }
      }
    }
  }
  return blocks;
}

/** What one call asks of the target, with its datatypes resolved. */
struct Operation {
  RmaKind kind = RmaKind::kPut;
  const void* origin = nullptr;
  int origin_count = 0;
  const TypeInfo* origin_type = nullptr;
  /** Where the get's bytes or the old elements go (the origin buffer for a get). */
  void* result = nullptr;
  int result_count = 0;
  const TypeInfo* result_type = nullptr;
  const void* compare = nullptr;
  int target = 0;
  MPI_Aint target_disp = 0;
  int target_count = 0;
  const TypeInfo* target_type = nullptr;
  MPI_Op op = MPI_OP_NULL;
};

/** `count` items of `type`: a usable type and a count not negative (errors on the window). */
int CheckWinData(MPI_Win win, int count, MPI_Datatype type, const char* call, const TypeInfo** t) {
  if (count < 0) return C().WinError(win, MPI_ERR_COUNT, call, "negative count");
  *t = C().types.Usable(type);
  if (*t == nullptr)
    return C().WinError(win, MPI_ERR_TYPE, call, "invalid or uncommitted datatype");
  return MPI_SUCCESS;
}

/** The op byte an accumulate travels with, and the base type its elements are combined as. */
int AccumulateOp(MPI_Win win, const Operation& o, const char* call, uint8_t* op, uint8_t* base) {
  const TypeInfo& t = *o.target_type;
  *base = static_cast<uint8_t>(t.homogeneous ? t.base : nicsim::mpi::Base::kByte);
  if (o.op == MPI_REPLACE || o.op == MPI_NO_OP) {
    *op = o.op == MPI_REPLACE ? nicsim::mpi::wire::kReplaceOp : nicsim::mpi::wire::kNoOp;
    return MPI_SUCCESS;
  }
  if (o.op < MPI_SUM || o.op > MPI_MINLOC) {
    return C().WinError(win, MPI_ERR_OP, call, "one-sided accumulates take predefined ops only");
  }
  const auto mop = static_cast<nicsim::mpi::Op>(o.op - MPI_SUM);
  if (!t.homogeneous || !nicsim::mpi::OpDefinedOn(mop, t.base)) {
    return C().WinError(win,
                        PredefinedOpDefinedOn(o.op, t) ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_OP,
                        call, "the op on this datatype at a window");
  }
  *op = static_cast<uint8_t>(mop);
  return MPI_SUCCESS;
}

/**
 * Checks operation `o` on `win` and starts it; a get or fetching accumulate's result id is
 * recorded, to be filled in when the simulator sends its bytes.
 */
int Start(MPI_Win win, const Operation& o, const char* call) {
  WinInfo& w = *C().Win(win);
  const auto members = static_cast<int>(w.members.size());
  if (o.target != MPI_PROC_NULL && (o.target < 0 || o.target >= members)) {
    return C().WinError(win, MPI_ERR_RANK, call,
                        "rank " + std::to_string(o.target) + " of " + std::to_string(members));
  }
  if (o.target_disp < 0) {
    return C().WinError(win, MPI_ERR_DISP, call, "displacement " + std::to_string(o.target_disp));
  }
  const uint64_t target_bytes = static_cast<uint64_t>(o.target_count) * o.target_type->size;
  const bool sends = nicsim::mpi::wire::CarriesOrigin(o.kind, o.op == MPI_NO_OP);
  const bool fetches = nicsim::mpi::wire::Fetches(o.kind);
  if ((sends && static_cast<uint64_t>(o.origin_count) * o.origin_type->size != target_bytes) ||
      (fetches && static_cast<uint64_t>(o.result_count) * o.result_type->size != target_bytes)) {
    return C().WinError(win, MPI_ERR_TYPE, call,
                        "the origin's and the target's data differ in length");
  }
  if (o.target == MPI_PROC_NULL) return MPI_SUCCESS;
  uint8_t op = 0;
  uint8_t base = 0;
  if (o.kind != RmaKind::kPut && o.kind != RmaKind::kGet) {
    NICSIM_MPI_TRY(AccumulateOp(win, o, call, &op, &base));
  }
  const auto unit = static_cast<int64_t>(w.disp_units[static_cast<size_t>(o.target)]);
  const std::vector<Block> blocks =
      TargetBlocks(*o.target_type, o.target_count, static_cast<int64_t>(o.target_disp) * unit);
  const uint64_t size = w.sizes[static_cast<size_t>(o.target)];
  // A dynamic window's displacements are addresses in memory the target attached, which only
  // it knows: the target refuses an access outside it (counted), as MPI leaves it undefined.
  const bool dynamic = w.flavor == MPI_WIN_FLAVOR_DYNAMIC;
  for (const Block& b : blocks) {
    const bool outside = b.disp < 0 || static_cast<uint64_t>(b.disp) > size ||
                         b.length > size - static_cast<uint64_t>(b.disp);
    if (outside && !dynamic) {
      return C().WinError(win, MPI_ERR_RMA_RANGE, call,
                          "bytes " + std::to_string(b.disp) + ".." +
                              std::to_string(b.disp + static_cast<int64_t>(b.length)) +
                              " of a window of " + std::to_string(size) + " at rank " +
                              std::to_string(o.target));
    }
  }
  Writer args;
  args.Put<int32_t>(win).Put<uint8_t>(static_cast<uint8_t>(o.kind)).Put<int32_t>(o.target);
  args.Put<uint8_t>(op).Put<uint8_t>(base);
  if (sends) {
    args.Blob(Pack(o.origin, static_cast<size_t>(o.origin_count), *o.origin_type));
  } else {
    args.Blob(nullptr, 0);
  }
  if (o.kind == RmaKind::kCompareSwap) {
    args.Blob(Pack(o.compare, 1, *o.origin_type));
  } else {
    args.Blob(nullptr, 0);
  }
  args.Put<uint32_t>(static_cast<uint32_t>(blocks.size()));
  for (const Block& b : blocks)
    args.Put<uint64_t>(static_cast<uint64_t>(b.disp)).Put<uint64_t>(b.length);
  Reply r = C().Call(Call::kRma, args);
  if (r.code != MPI_SUCCESS) return C().WinError(win, r.code, call, "");
  const auto id = r.results.Get<uint64_t>();
  if (fetches && id != 0) {
    C().pending_results[id] =
        PendingResult{o.result, o.result_count, std::make_shared<TypeInfo>(*o.result_type)};
  }
  return MPI_SUCCESS;
}

/** An operation of a call with origin and target datatypes (result: a get's origin). */
int Operate(RmaKind kind, const void* origin, int origin_count, MPI_Datatype origin_type,
            void* result, int result_count, MPI_Datatype result_type, int target,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
            MPI_Win win, const char* call) {
  NICSIM_MPI_TRY(CheckWin(win, call));
  Operation o;
  o.kind = kind;
  o.origin = origin;
  o.result = result;
  o.target = target;
  o.target_disp = target_disp;
  o.target_count = target_count;
  o.op = op;
  if (nicsim::mpi::wire::CarriesOrigin(kind, op == MPI_NO_OP)) {
    o.origin_count = origin_count;
    NICSIM_MPI_TRY(CheckWinData(win, origin_count, origin_type, call, &o.origin_type));
  }
  if (result != nullptr || kind == RmaKind::kGet || kind == RmaKind::kGetAccumulate) {
    o.result_count = result_count;
    NICSIM_MPI_TRY(CheckWinData(win, result_count, result_type, call, &o.result_type));
  }
  NICSIM_MPI_TRY(CheckWinData(win, target_count, target_type, call, &o.target_type));
  return Start(win, o, call);
}

/** A request form: the operation, which a wait or test completes at its target (a flush there
 *  while the passive epoch lasts: CompleteRmaRequest). */
int Requested(int code, int target, MPI_Win win, MPI_Request* request, const char* call) {
  if (code != MPI_SUCCESS) return code;
  if (request == nullptr) return C().WinError(win, MPI_ERR_ARG, call, "null request");
  RequestInfo info;
  info.comm = MPI_COMM_NULL;
  info.server = kDone;
  if (target != MPI_PROC_NULL) {
    info.rma_win = win;
    info.rma_target = target;
  }
  *request = C().AddRequest(info);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win) {
  return Operate(RmaKind::kPut, origin_addr, origin_count, origin_datatype, nullptr, 0,
                 MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                 MPI_OP_NULL, win, "MPI_Put");
}

int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return Operate(RmaKind::kGet, nullptr, 0, MPI_DATATYPE_NULL, origin_addr, origin_count,
                 origin_datatype, target_rank, target_disp, target_count, target_datatype,
                 MPI_OP_NULL, win, "MPI_Get");
}

int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return Operate(RmaKind::kAccumulate, origin_addr, origin_count, origin_datatype, nullptr, 0,
                 MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op,
                 win, "MPI_Accumulate");
}

int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void* result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return Operate(RmaKind::kGetAccumulate, origin_addr, origin_count, origin_datatype, result_addr,
                 result_count, result_datatype, target_rank, target_disp, target_count,
                 target_datatype, op, win, "MPI_Get_accumulate");
}

int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return Operate(RmaKind::kGetAccumulate, origin_addr, 1, datatype, result_addr, 1, datatype,
                 target_rank, target_disp, 1, datatype, op, win, "MPI_Fetch_and_op");
}

int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Compare_and_swap"));
  Operation o;
  o.kind = RmaKind::kCompareSwap;
  o.origin = origin_addr;
  o.origin_count = 1;
  o.compare = compare_addr;
  o.result = result_addr;
  o.result_count = 1;
  o.target = target_rank;
  o.target_disp = target_disp;
  o.target_count = 1;
  o.op = MPI_REPLACE;
  NICSIM_MPI_TRY(CheckWinData(win, 1, datatype, "MPI_Compare_and_swap", &o.origin_type));
  o.result_type = o.target_type = o.origin_type;
  return Start(win, o, "MPI_Compare_and_swap");
}

int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request* request) {
  return Requested(MPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win),
                   target_rank, win, request, "MPI_Rput");
}

int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request) {
  return Requested(MPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win),
                   target_rank, win, request, "MPI_Rget");
}

int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return Requested(MPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                  target_disp, target_count, target_datatype, op, win),
                   target_rank, win, request, "MPI_Raccumulate");
}

int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request* request) {
  return Requested(MPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                      result_count, result_datatype, target_rank, target_disp,
                                      target_count, target_datatype, op, win),
                   target_rank, win, request, "MPI_Rget_accumulate");
}

}  // extern "C"
