// SPDX-License-Identifier: Apache-2.0
// MPI's window calls: making and freeing windows, and what a window carries (its group, name,
// hints and error handler). Operations on windows: api_rma.cc; their epochs: api_win_sync.cc.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/errhandlers.h"
#include "ulp/mpi/capi/object_hooks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::WinFlavor;
using nicsim::mpi::wire::Writer;

namespace {

/** The hints a window knows, with their values when the program sets none. */
const InfoEntries& DefaultHints() {
  static const InfoEntries hints = {{"no_locks", "false"},
                                    {"accumulate_ordering", "rar,raw,war,waw"},
                                    {"accumulate_ops", "same_op_no_op"},
                                    {"same_size", "false"},
                                    {"same_disp_unit", "false"}};
  return hints;
}

/** `hints` with the values `info` gives the keys a window knows (others are ignored). */
InfoEntries WithHints(InfoEntries hints, MPI_Info info) {
  const InfoEntries* given = FindInfo(info);
  if (given == nullptr) return hints;
  for (auto& [key, value] : hints) {
    for (const auto& [k, v] : *given) {
      if (k == key) value = v;
    }
  }
  return hints;
}

/** The shared window of this process whose memory holds `bytes` at `base` (its offset there in
 *  `*offset`), or 0. */
MPI_Win SharedHolding(const void* base, size_t bytes, uint64_t* offset) {
  const auto* at = static_cast<const uint8_t*>(base);
  for (size_t h = 1; h < C().wins.size(); ++h) {
    const WinInfo& w = C().wins[h];
    if (!w.valid || w.shared_map == nullptr || at < w.shared_map) continue;
    const auto from = static_cast<uint64_t>(at - w.shared_map);
    if (from <= w.shared_bytes && bytes <= w.shared_bytes - from) {
      *offset = from;
      return static_cast<MPI_Win>(h);
    }
  }
  return 0;
}

int FlavorOf(WinFlavor flavor) {
  switch (flavor) {
    case WinFlavor::kCreate:
      return MPI_WIN_FLAVOR_CREATE;
    case WinFlavor::kAllocate:
      return MPI_WIN_FLAVOR_ALLOCATE;
    case WinFlavor::kDynamic:
      return MPI_WIN_FLAVOR_DYNAMIC;
    case WinFlavor::kShared:
      return MPI_WIN_FLAVOR_SHARED;
  }
  return MPI_WIN_FLAVOR_CREATE;
}

/**
 * Maps the memory the members of shared window `w` share (its descriptor follows the reply),
 * every member's back to back by rank; `*base` gets this rank's. The simulator's window is
 * the same memory: loads and stores need no copy either way (the unified model).
 */
bool MapShared(WinInfo& w, void** base, const char* call) {
  const int fd = C().ReceiveDescriptor();
  if (fd < 0) return false;
  uint64_t total = 0;
  for (uint64_t s : w.sizes) {
    w.offsets.push_back(total);
    total += s;
  }
  w.shared_bytes = std::max<uint64_t>(total, 1);
  void* at = mmap(nullptr, w.shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (at == MAP_FAILED) {
    C().Abort(MPI_ERR_NO_MEM, std::string(call) + ": mapping the shared memory failed");
  }
  w.shared_map = static_cast<uint8_t*>(at);
  w.model = MPI_WIN_UNIFIED;
  *base = w.shared_map + w.offsets[static_cast<size_t>(w.rank)];
  return true;
}

/**
 * A window over `size` bytes at `base` (MPI_Win_create) or of memory the library allocates
 * (`allocate`: its address in *baseptr): the simulator makes its copy, collectively, and
 * answers with every member's size and displacement unit.
 */
int MakeWindow(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
               WinFlavor flavor, void* baseptr, MPI_Win* win, const char* call) {
  const bool allocate = flavor == WinFlavor::kAllocate;
  const bool shared = flavor == WinFlavor::kShared;
  NICSIM_MPI_TRY(CheckIntracomm(comm, call));
  if (size < 0) return C().Error(comm, MPI_ERR_SIZE, call, "negative size");
  if (disp_unit <= 0) {
    return C().Error(comm, MPI_ERR_DISP, call, "displacement unit " + std::to_string(disp_unit));
  }
  if (win == nullptr || ((allocate || shared) && baseptr == nullptr)) {
    return C().Error(comm, MPI_ERR_ARG, call, "null window or base pointer");
  }
  if (info != MPI_INFO_NULL && FindInfo(info) == nullptr) {
    return C().Error(comm, MPI_ERR_INFO, call, "invalid info handle " + std::to_string(info));
  }
  const auto bytes = static_cast<size_t>(size);
  std::unique_ptr<uint8_t[]> allocated;
  if (allocate) {
    allocated.reset(new (std::nothrow) uint8_t[std::max<size_t>(bytes, 1)]());
    if (allocated == nullptr) return C().Error(comm, MPI_ERR_NO_MEM, call, "");
    base = allocated.get();
  } else if (!shared && bytes > 0 && base == nullptr) {
    return C().Error(comm, MPI_ERR_BASE, call, "a null base for a window of memory");
  }
  const CommInfo& c = *C().Comm(comm);
  uint64_t offset = 0;
  const MPI_Win within = flavor == WinFlavor::kCreate ? SharedHolding(base, bytes, &offset) : 0;
  Writer w;
  w.Put<int32_t>(comm).Put<uint8_t>(static_cast<uint8_t>(flavor)).Put<int32_t>(disp_unit);
  w.Put<uint64_t>(bytes).Put<int32_t>(within).Put<uint64_t>(offset);
  if (flavor == WinFlavor::kCreate && within == 0) {
    w.Blob(base, bytes);
  } else {
    w.Blob(nullptr, 0);
  }
  Reply r = C().Call(Call::kWinCreate, w);
  if (r.code == MPI_ERR_RMA_SHARED) {
    return C().Error(comm, r.code, call, "the members do not all run on one node");
  }
  if (r.code != MPI_SUCCESS) {
    return C().Error(comm, r.code, call, "the simulator cannot hold a window of this size");
  }
  WinInfo made;
  made.valid = true;
  made.members = c.members;
  made.rank = c.rank;
  made.base = base;
  made.size = size;
  made.disp_unit = disp_unit;
  made.flavor = FlavorOf(flavor);
  const auto handle = r.results.Get<int32_t>();
  const auto image = r.results.Get<int32_t>();
  const auto n = r.results.Get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    made.sizes.push_back(r.results.Get<uint64_t>());
    made.disp_units.push_back(r.results.Get<int32_t>());
  }
  if (shared && !MapShared(made, &base, call)) {
    C().Abort(MPI_ERR_INTERN, std::string(call) + ": the shared memory did not come");
  }
  made.base = base;
  if (within != 0) made.model = MPI_WIN_UNIFIED;
  if (image != 0) {
    made.images[image] =
        std::make_unique<nicsim::mpi::wire::WindowImage>(static_cast<uint8_t*>(base), bytes);
  }
  made.allocated = std::move(allocated);
  made.hints = WithHints(DefaultHints(), info);
  made.errhandler = MPI_ERRORS_ARE_FATAL;
  if (handle <= 0 || r.results.failed()) {
    C().Abort(MPI_ERR_INTERN, std::string(call) + ": the simulator's answer is malformed");
  }
  if (static_cast<size_t>(handle) >= C().wins.size()) C().wins.resize(handle + 1);
  C().wins[handle] = std::move(made);
  *win = handle;
  if (allocate || shared) *static_cast<void**>(baseptr) = base;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win) {
  return MakeWindow(base, size, disp_unit, info, comm, WinFlavor::kCreate, nullptr, win,
                    "MPI_Win_create");
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                     MPI_Win* win) {
  return MakeWindow(nullptr, size, disp_unit, info, comm, WinFlavor::kAllocate, baseptr, win,
                    "MPI_Win_allocate");
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void* baseptr, MPI_Win* win) {
  return MakeWindow(nullptr, size, disp_unit, info, comm, WinFlavor::kShared, baseptr, win,
                    "MPI_Win_allocate_shared");
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_shared_query"));
  const WinInfo& w = *C().Win(win);
  if (w.flavor != MPI_WIN_FLAVOR_SHARED) {
    return C().WinError(win, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query",
                        "the window is not of the shared flavor");
  }
  const auto members = static_cast<int>(w.members.size());
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= members)) {
    return C().WinError(win, MPI_ERR_RANK, "MPI_Win_shared_query",
                        "rank " + std::to_string(rank) + " of " + std::to_string(members));
  }
  if (size == nullptr || disp_unit == nullptr || baseptr == nullptr) {
    return C().WinError(win, MPI_ERR_ARG, "MPI_Win_shared_query", "a null argument");
  }
  // MPI_PROC_NULL: the first member whose memory is not empty (MPI 3.1, 11.2.3).
  int of = rank == MPI_PROC_NULL ? 0 : rank;
  if (rank == MPI_PROC_NULL) {
    while (of + 1 < members && w.sizes[static_cast<size_t>(of)] == 0) ++of;
  }
  *size = static_cast<MPI_Aint>(w.sizes[static_cast<size_t>(of)]);
  *disp_unit = w.disp_units[static_cast<size_t>(of)];
  // A member with no memory has no address (as MPICH answers).
  *static_cast<void**>(baseptr) =
      *size == 0 ? nullptr : w.shared_map + w.offsets[static_cast<size_t>(of)];
  return MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return MakeWindow(MPI_BOTTOM, 0, 1, info, comm, WinFlavor::kDynamic, nullptr, win,
                    "MPI_Win_create_dynamic");
}

int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_attach"));
  WinInfo& w = *C().Win(win);
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    return C().WinError(win, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach",
                        "the window is not of the dynamic flavor");
  }
  if (size < 0) return C().WinError(win, MPI_ERR_SIZE, "MPI_Win_attach", "negative size");
  const auto address = reinterpret_cast<uintptr_t>(base);
  if ((size > 0 && base == nullptr) || w.attached.count(address) != 0) {
    return C().WinError(win, MPI_ERR_RMA_ATTACH, "MPI_Win_attach",
                        base == nullptr ? "a null base" : "memory attached there already");
  }
  const auto bytes = static_cast<size_t>(size);
  Reply r = C().Call(Call::kWinAttach,
                     Writer().Put<int32_t>(win).Put<uint64_t>(address).Blob(base, bytes));
  if (r.code != MPI_SUCCESS) {
    return C().WinError(win, r.code, "MPI_Win_attach", "the simulator cannot hold it");
  }
  const auto image = r.results.Get<int32_t>();
  // The call may have moved the table of windows.
  WinInfo& now = *C().Win(win);
  now.attached[address] = image;
  now.images[image] =
      std::make_unique<nicsim::mpi::wire::WindowImage>(static_cast<uint8_t*>(base), bytes);
  return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void* base) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_detach"));
  const auto address = reinterpret_cast<uintptr_t>(base);
  auto it = C().Win(win)->attached.find(address);
  if (it == C().Win(win)->attached.end()) {
    return C().WinError(win, MPI_ERR_RMA_ATTACH, "MPI_Win_detach",
                        "no memory is attached at that address");
  }
  const int32_t image = it->second;
  // The memory's last changes come back with the reply; then its image goes.
  C().Call(Call::kWinDetach, Writer().Put<int32_t>(win).Put<uint64_t>(address));
  WinInfo& w = *C().Win(win);
  w.attached.erase(address);
  w.images.erase(image);
  return MPI_SUCCESS;
}

int MPI_Win_free(MPI_Win* win) {
  if (win == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_free", "null window");
  NICSIM_MPI_TRY(CheckWin(*win, "MPI_Win_free"));
  // A program may have freed the window's memory already, though the window lives on: its
  // stores are not read; the other ranks' last operations are written.
  const int deleted = DeleteWinAttributes(*win);
  WinInfo closing = std::move(*C().Win(*win));
  C().wins[*win] = WinInfo{};
  Reply r = C().Call(Call::kWinFree, Writer().Put<int32_t>(*win));
  if (closing.shared_map != nullptr) munmap(closing.shared_map, closing.shared_bytes);
  const auto [last, n] = r.results.Blob();
  nicsim::mpi::wire::ApplyChangesSection(last, n, [&](int32_t number) {
    auto it = closing.images.find(number);
    return it != closing.images.end() ? it->second.get() : nullptr;
  });
  *win = MPI_WIN_NULL;
  if (deleted != MPI_SUCCESS) {
    return C().Error(MPI_COMM_WORLD, deleted, "MPI_Win_free", "an attribute's delete callback");
  }
  return MPI_SUCCESS;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_get_group"));
  if (group == nullptr) return C().WinError(win, MPI_ERR_ARG, "MPI_Win_get_group", "null group");
  *group = C().AddGroup(C().Win(win)->members);
  return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_set_name"));
  if (win_name == nullptr) return C().WinError(win, MPI_ERR_ARG, "MPI_Win_set_name", "null name");
  C().Win(win)->name = std::string(win_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_get_name"));
  if (win_name == nullptr || resultlen == nullptr) {
    return C().WinError(win, MPI_ERR_ARG, "MPI_Win_get_name", "null name or length");
  }
  const std::string& name = C().Win(win)->name;
  std::memcpy(win_name, name.c_str(), name.size() + 1);
  *resultlen = static_cast<int>(name.size());
  return MPI_SUCCESS;
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_set_info"));
  if (info != MPI_INFO_NULL && FindInfo(info) == nullptr) {
    return C().WinError(win, MPI_ERR_INFO, "MPI_Win_set_info",
                        "invalid info handle " + std::to_string(info));
  }
  WinInfo& w = *C().Win(win);
  w.hints = WithHints(std::move(w.hints), info);
  return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_get_info"));
  if (info_used == nullptr) {
    return C().WinError(win, MPI_ERR_ARG, "MPI_Win_get_info", "null info_used");
  }
  *info_used = AddInfo(C().Win(win)->hints);
  return MPI_SUCCESS;
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                              MPI_Errhandler* errhandler) {
  if (win_errhandler_fn == nullptr || errhandler == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_create_errhandler",
                     "null function or errhandler");
  }
  // One table for both kinds: their functions differ only in the handle type, an int.
  *errhandler = AddErrhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(win_errhandler_fn));
  return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_set_errhandler"));
  if (!KnownErrhandler(errhandler)) {
    return C().WinError(win, MPI_ERR_ARG, "MPI_Win_set_errhandler", "unknown error handler");
  }
  C().Win(win)->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_get_errhandler"));
  if (errhandler == nullptr) {
    return C().WinError(win, MPI_ERR_ARG, "MPI_Win_get_errhandler", "null errhandler");
  }
  *errhandler = C().Win(win)->errhandler;
  HoldErrhandler(*errhandler);
  return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  NICSIM_MPI_TRY(CheckWin(win, "MPI_Win_call_errhandler"));
  // The handler ran (or ended the run): with MPI_ERRORS_RETURN too, the call itself succeeded.
  C().WinError(win, errorcode, "MPI_Win_call_errhandler", "");
  return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

}  // extern "C"
