// SPDX-License-Identifier: Apache-2.0
// The call server's one-sided calls: windows made over a copy of the program's memory, the
// operations the program starts (one per block of the target's datatype), the epochs that end
// them (with the results that come back), and the changes to the windows' memory that travel
// with every call and reply.
#include <cstring>
#include <iterator>
#include <utility>

#include "sim/mpirun/call_server.h"

namespace nicsim::sim {
namespace {

using mpi::wire::Call;
using mpi::wire::RmaKind;

/** MPI_ERR_RMA_SYNC and MPI_ERR_RMA_SHARED (mpi.h). */
constexpr int32_t kErrRmaSync = 47, kErrRmaShared = 56;

/** The layer's form of an accumulate's op byte (wire.h's kRma). */
std::pair<mpi::Op, mpi::OneSided::Update> UpdateOf(uint8_t op) {
  if (op == mpi::wire::kReplaceOp) return {mpi::Op::kSum, mpi::OneSided::Update::kReplace};
  if (op == mpi::wire::kNoOp) return {mpi::Op::kSum, mpi::OneSided::Update::kNoOp};
  return {static_cast<mpi::Op>(op), mpi::OneSided::Update::kCombine};
}

}  // namespace

bool CallServer::Windows(Call call, const calls::Args& args, Writer& out) {
  switch (call) {
    case Call::kWinCreate:
      return WinCreate(std::get<calls::WinCreate>(args), out);
    case Call::kWinAttach:
      return WinAttach(std::get<calls::WinAttach>(args), out);
    case Call::kWinDetach: {
      const auto& a = std::get<calls::WinAttach>(args);
      auto w = windows_.find(a.win);
      if (w == windows_.end()) return false;
      for (auto& [number, image] : images_) {
        if (image.window == a.win && image.address == a.address && !image.detached) {
          mpi_.WinDetach(w->second.win, a.address);
          image.detached = true;
          return true;
        }
      }
      return false;
    }
    case Call::kWinFree: {
      const int32_t handle = std::get<calls::OnWin>(args).win;
      auto it = windows_.find(handle);
      if (it == windows_.end()) return false;
      // The window's last changes (what the fence inside applied) are the call's result: the
      // program sent none of its own, as it may have freed the memory already.
      std::vector<std::pair<int32_t, mpi::wire::WindowImage*>> mine;
      for (auto& [number, image] : images_) {
        if (image.window == handle) mine.emplace_back(number, image.image.get());
      }
      std::vector<uint8_t> last;
      mpi_.WinFree(it->second.win, [&] { last = mpi::wire::ChangesSection(mine); });
      out.Blob(last);
      if (it->second.shared) segments_.Release(*it->second.shared);
      windows_.erase(it);
      for (auto image = images_.begin(); image != images_.end();) {
        image = image->second.window == handle ? images_.erase(image) : std::next(image);
      }
      return true;
    }
    case Call::kRma:
      return Rma(std::get<calls::Rma>(args), out);
    case Call::kWinSync:
      return WinSync(std::get<calls::WinSync>(args), out);
    default:
      return false;
  }
}

int32_t CallServer::AddImage(int32_t window, uint64_t address, std::unique_ptr<uint8_t[]> copy,
                             uint8_t* base, uint64_t bytes) {
  const int32_t number = next_image_++;
  ServedImage& image = images_[number];
  image.window = window;
  image.address = address;
  image.copy = std::move(copy);
  image.image = std::make_unique<mpi::wire::WindowImage>(base, bytes);
  return number;
}

bool CallServer::WinCreate(const calls::WinCreate& a, Writer& out) {
  using mpi::wire::WinFlavor;
  const mpi::Comm* c = CommOf(a.comm);
  if (c == nullptr) return false;
  if (a.flavor == WinFlavor::kShared) {
    // Every member runs on this rank's node, or none can share memory with the others.
    for (int r = 0; r < c->size(); ++r) {
      if (static_cast<uint32_t>(c->group->World(r)) % job_.cluster().config().nodes != node()) {
        Fail(out, kErrRmaShared);
        return true;
      }
    }
  }
  // Every member learns every member's size and displacement unit, to place its operations.
  struct Shape {
    uint64_t size;
    int64_t disp_unit;
  };
  const Shape mine{a.size, a.disp_unit};
  std::vector<Shape> all(static_cast<size_t>(c->size()));
  mpi_.Allgather(&mine, sizeof(mine), mpi::kByteType, all.data(), *c);
  ServedWindow w;
  void* base = nullptr;
  std::unique_ptr<uint8_t[]> copy;
  if (a.flavor == WinFlavor::kShared) {
    std::vector<uint64_t> sizes;
    for (const Shape& shape : all) sizes.push_back(shape.size);
    if (!WinCreateShared(*c, sizes, w, out)) return true;
  } else if (a.flavor == WinFlavor::kAllocate) {
    // Memory this process cannot hold fails the call here, before the members' collective.
    if (CallBuffer(a.size, /*zeroed=*/false) == nullptr) return NoMemory(out);
    w.win = mpi_.WinAllocate(a.size, *c, &base);
  } else if (a.within != 0) {
    // Memory of a shared window: the window is a view of the very memory, as in the program.
    auto in = windows_.find(a.within);
    if (in == windows_.end() || !in->second.shared) return false;
    SharedSegments::Segment* segment = segments_.Find(*in->second.shared);
    if (segment == nullptr || a.offset > segment->bytes || a.size > segment->bytes - a.offset) {
      return false;
    }
    ++segment->holders;
    w.shared = in->second.shared;
    w.win = mpi_.WinCreate(segment->base + a.offset, a.size, *c);
  } else {
    // A dynamic window exposes no memory until the program attaches some.
    copy = CallBuffer(a.size, /*zeroed=*/false);
    if (copy == nullptr) return NoMemory(out);
    if (a.size > 0) std::memcpy(copy.get(), a.contents.data, a.size);
    base = copy.get();
    w.win = mpi_.WinCreate(base, a.size, *c);
  }
  const int32_t handle = next_window_++;
  windows_.emplace(handle, std::move(w));
  // A shared window's memory is the programs' own; a dynamic one has none yet.
  const bool imaged =
      (a.flavor == WinFlavor::kCreate && a.within == 0) || a.flavor == WinFlavor::kAllocate;
  const int32_t image =
      imaged ? AddImage(handle, 0, std::move(copy), static_cast<uint8_t*>(base), a.size) : 0;
  out.Put<int32_t>(handle).Put<int32_t>(image).Put<uint32_t>(static_cast<uint32_t>(all.size()));
  for (const Shape& s : all) {
    out.Put<uint64_t>(s.size).Put<int32_t>(static_cast<int32_t>(s.disp_unit));
  }
  return true;
}

bool CallServer::WinCreateShared(const mpi::Comm& c, const std::vector<uint64_t>& sizes,
                                 ServedWindow& w, Writer& out) {
  uint64_t total = 0;
  uint64_t offset = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    if (static_cast<int>(r) == c.rank) offset = total;
    total += sizes[r];
  }
  const std::pair<uint32_t, int> comm{c.context, c.group->World(0)};
  const SharedSegments::Key key{comm.first, comm.second, shared_made_[comm]++};
  Result<SharedSegments::Segment*> segment = segments_.Take(key, total);
  if (!segment.ok()) {
    // The other members fail alike: the system refuses the same memory to all of them.
    NoMemory(out);
    return false;
  }
  w.win = mpi_.WinCreate((*segment)->base + offset, sizes[static_cast<size_t>(c.rank)], c);
  w.shared = key;
  pending_descriptor_ = (*segment)->fd;
  return true;
}

bool CallServer::WinAttach(const calls::WinAttach& a, Writer& out) {
  auto w = windows_.find(a.win);
  if (w == windows_.end()) return false;
  std::unique_ptr<uint8_t[]> copy = CallBuffer(a.contents.size, /*zeroed=*/false);
  if (copy == nullptr) return NoMemory(out);
  if (a.contents.size > 0) std::memcpy(copy.get(), a.contents.data, a.contents.size);
  uint8_t* base = copy.get();
  mpi_.WinAttach(w->second.win, a.address, base, a.contents.size);
  out.Put<int32_t>(AddImage(a.win, a.address, std::move(copy), base, a.contents.size));
  return true;
}

bool CallServer::Rma(const calls::Rma& a, Writer& out) {
  auto it = windows_.find(a.win);
  if (it == windows_.end() || a.target >= it->second.win.comm.size()) {
    return false;
  }
  ServedWindow& w = it->second;
  const bool fetches = mpi::wire::Fetches(a.kind);
  // More than this process can hold fails the call (the program's error: the run goes on).
  uint64_t id = 0;
  uint8_t* result = nullptr;
  if (fetches) {
    ServedWindow::Result landing{CallBuffer(a.total, /*zeroed=*/true), a.total};
    if (landing.bytes == nullptr) return NoMemory(out);
    result = landing.bytes.get();
    id = next_result_++;
    w.results.emplace(id, std::move(landing));
  }
  // A fetch that only reads carries no origin bytes: the layer is given zeros it leaves be.
  std::unique_ptr<uint8_t[]> zeros;
  const uint8_t* origin = a.origin.data;
  if (a.origin.size < a.total) {
    zeros = CallBuffer(a.total, /*zeroed=*/true);
    if (zeros == nullptr) return NoMemory(out);
    origin = zeros.get();
  }
  const auto [op, update] = UpdateOf(a.op);
  const auto base = static_cast<mpi::Base>(a.base);
  mpi::OneSided::Blocks blocks;
  for (const calls::WinBlock& b : a.blocks) blocks.emplace_back(b.disp, b.length);
  switch (a.kind) {
    case RmaKind::kPut:
      mpi_.PutBlocks(origin, blocks, a.target, w.win);
      break;
    case RmaKind::kGet:
      mpi_.GetBlocks(result, blocks, a.target, w.win);
      break;
    case RmaKind::kAccumulate:
      mpi_.AccumulateBlocks(origin, nullptr, blocks, base, update, op, a.target, w.win);
      break;
    case RmaKind::kGetAccumulate:
      mpi_.AccumulateBlocks(origin, result, blocks, base, update, op, a.target, w.win);
      break;
    case RmaKind::kCompareSwap:
      // One element: the program sends no other.
      if (blocks.size() == 1) {
        mpi_.CompareAndSwap(origin, a.compare.data, result, mpi::Datatype::Of(base), a.target,
                            blocks[0].first, w.win);
      }
      break;
  }
  out.Put<uint64_t>(id);
  return true;
}

bool CallServer::WinSync(const calls::WinSync& a, Writer& out) {
  using mpi::wire::WinSync;
  auto it = windows_.find(a.win);
  if (it == windows_.end()) return false;
  ServedWindow& w = it->second;
  const int size = w.win.comm.size();
  const bool targets = a.what == WinSync::kLock || a.what == WinSync::kUnlock ||
                       a.what == WinSync::kFlush || a.what == WinSync::kRequest;
  if (targets && (a.target < 0 || a.target >= size)) return false;
  for (int r : a.ranks) {
    if (r >= size) return false;
  }
  bool done = false;
  if (!Synchronise(w, a, &done)) {
    // Out of turn (an unlock with no lock, a second start ...): the layer never sees it.
    Fail(out, kErrRmaSync);
    return true;
  }
  out.Put<uint8_t>(done);
  // These wait until every operation this rank started on the window is complete here: every
  // result is in place, and goes to the program.
  const bool ends = a.what == WinSync::kFence || a.what == WinSync::kUnlock ||
                    a.what == WinSync::kFlush || a.what == WinSync::kUnlockAll ||
                    a.what == WinSync::kFlushAll || a.what == WinSync::kComplete ||
                    a.what == WinSync::kRequest;
  if (!ends) {
    out.Put<uint32_t>(0);
    return true;
  }
  out.Put<uint32_t>(static_cast<uint32_t>(w.results.size()));
  for (const auto& [id, landing] : w.results) {
    out.Put<uint64_t>(id).Blob(landing.bytes.get(), landing.size);
  }
  w.results.clear();
  return true;
}

bool CallServer::Synchronise(ServedWindow& w, const calls::WinSync& a, bool* done) {
  using mpi::wire::WinSync;
  // Runs `step` if `in_turn`, after which the epoch `open` says is open or not (`after`).
  const auto turn = [](bool in_turn, bool& open, bool after, const auto& step) {
    if (in_turn) {
      step();
      open = after;
    }
    return in_turn;
  };
  const auto kind = a.exclusive ? mpi::Mpi::LockType::kExclusive : mpi::Mpi::LockType::kShared;
  const bool locked = w.locked.count(a.target) != 0;
  bool unused = false;
  switch (a.what) {
    case WinSync::kFence:
      mpi_.Fence(w.win);
      return true;
    case WinSync::kLock:
      return turn(!w.locked_all && !locked, unused, false, [&] {
        mpi_.WinLock(kind, a.target, w.win);
        w.locked.insert(a.target);
      });
    case WinSync::kUnlock:
      return turn(locked, unused, false, [&] {
        mpi_.WinUnlock(a.target, w.win);
        w.locked.erase(a.target);
      });
    case WinSync::kFlush:
      return turn(locked || w.locked_all, unused, false, [&] { mpi_.WinFlush(a.target, w.win); });
    case WinSync::kLockAll:
      return turn(!w.locked_all && w.locked.empty(), w.locked_all, true,
                  [&] { mpi_.WinLockAll(w.win); });
    case WinSync::kUnlockAll:
      return turn(w.locked_all, w.locked_all, false, [&] { mpi_.WinUnlockAll(w.win); });
    case WinSync::kFlushAll:
      return turn(w.locked_all || !w.locked.empty(), unused, false, [&] {
        if (w.locked_all) {
          mpi_.WinFlushAll(w.win);
        } else {
          for (int target : w.locked) mpi_.WinFlush(target, w.win);
        }
      });
    case WinSync::kPost:
      return turn(!w.exposed, w.exposed, true, [&] { mpi_.WinPost(a.ranks, w.win); });
    case WinSync::kStart:
      return turn(!w.accessing, w.accessing, true, [&] { mpi_.WinStart(a.ranks, w.win); });
    case WinSync::kComplete:
      return turn(w.accessing, w.accessing, false, [&] { mpi_.WinComplete(w.win); });
    case WinSync::kWait:
      return turn(w.exposed, w.exposed, false, [&] { mpi_.WinWait(w.win); });
    case WinSync::kTest:
      if (!w.exposed) return false;
      *done = mpi_.WinTest(w.win);
      if (*done) {
        w.exposed = false;
      } else {
        job_.Sleep(static_cast<uint32_t>(rank()), kUnsuccessfulPollPs);
      }
      return true;
    case WinSync::kSync:
      // The memory alone: the changes travel with the call and its reply.
      return true;
    case WinSync::kRequest:
      if (locked || w.locked_all) mpi_.WinFlush(a.target, w.win);
      return true;
  }
  return false;
}

std::vector<uint8_t> CallServer::WindowChanges() {
  std::vector<std::pair<int32_t, mpi::wire::WindowImage*>> images;
  for (auto& [number, image] : images_) images.emplace_back(number, image.image.get());
  if (images.empty()) return {};
  std::vector<uint8_t> changes = mpi::wire::ChangesSection(images);
  for (auto image = images_.begin(); image != images_.end();) {
    image = image->second.detached ? images_.erase(image) : std::next(image);
  }
  return changes;
}

bool CallServer::TakeWindowChanges(std::vector<uint8_t>& args) {
  mpi::wire::Reader in(args.data(), args.size());
  const auto [data, n] = in.Blob();
  if (in.failed()) return false;
  const bool applied =
      mpi::wire::ApplyChangesSection(data, n, [this](int32_t number) -> mpi::wire::WindowImage* {
        auto it = images_.find(number);
        return it != images_.end() ? it->second.image.get() : nullptr;
      });
  args.erase(args.begin(), args.begin() + static_cast<ptrdiff_t>(args.size() - in.left()));
  return applied;
}

}  // namespace nicsim::sim
