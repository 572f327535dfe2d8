// SPDX-License-Identifier: Apache-2.0
// One-sided communication on one rank: windows exposed and published, puts, gets (read
// directly where the target's memory is published) and accumulates, and what arrives for them.
// The block operations are in one_sided_blocks.cc, the epochs' synchronisation in
// one_sided_sync.cc.
#include "ulp/mpi/one_sided.h"

#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>

#include "base/check.h"
#include "ulp/mpi/one_sided_wire.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

using namespace one_sided_wire;  // NOLINT(google-build-using-namespace): this file's messages

namespace {

/**
 * A get's reply of at most this many bytes travels as a message even from memory the adapter
 * reaches: the request and the reply are one round trip, where announcing the bytes for the
 * origin to pull takes two (the announcement, then the read), which only pays once the copies
 * a message costs outweigh the extra round trip.
 */
constexpr uint64_t kGetReplyMessageBytes = 1024;

/** Announced transfers name their displacement or get id in the 32-bit tag. */
constexpr uint64_t kTagLimit = uint64_t{1} << 32;

}  // namespace

void OneSided::Expose(uint32_t context, uint8_t* base, size_t bytes) {
  windows_[context] = Exposed{};
  if (bytes == 0) return;
  Attach(context, 0, base, bytes);
  Publish(windows_[context].regions[0]);
}

void OneSided::Publish(Region& region) {
  if (region.task_vaddr == 0) return;
  Result<std::vector<ulp::RegistrationCache::Span>> spans =
      s_.transport.registrations().Acquire(region.task_vaddr, region.bytes);
  if (!spans.ok()) return;
  if (spans->size() == 1) {
    region.pvo = spans->front().pvo;
    return;
  }
  s_.transport.registrations().Release(region.task_vaddr, region.bytes);
}

void OneSided::Unpublish(const Region& region) {
  if (region.pvo != 0) s_.transport.registrations().Release(region.task_vaddr, region.bytes);
}

OneSided::Published OneSided::PublishedHere(uint32_t context) const {
  auto it = windows_.find(context);
  if (it == windows_.end() || it->second.regions.size() != 1) return Published{};
  const Region& region = it->second.regions.begin()->second;
  if (region.pvo == 0) return Published{};
  return Published{region.pvo, region.disp, region.bytes};
}

void OneSided::Learn(uint32_t context, int target_world, const Published& p) {
  if (p.pvo != 0) published_[{context, target_world}] = p;
}

void OneSided::Attach(uint32_t context, uint64_t disp, uint8_t* base, size_t bytes) {
  const uint64_t task_vaddr = bytes > 0 ? s_.areas.TaskAddress(base, bytes).value_or(0) : 0;
  windows_[context].regions[disp] = Region{disp, base, bytes, task_vaddr};
}

void OneSided::Detach(uint32_t context, uint64_t disp) {
  auto it = windows_.find(context);
  if (it == windows_.end()) return;
  auto region = it->second.regions.find(disp);
  if (region == it->second.regions.end()) return;
  Unpublish(region->second);
  it->second.regions.erase(region);
}

uint8_t* OneSided::ExposeOwned(uint32_t context, size_t bytes) {
  std::vector<uint8_t>& memory = owned_[context];
  memory.assign(bytes, 0);
  Expose(context, memory.data(), bytes);
  return memory.data();
}

void OneSided::Forget(uint32_t context) {
  if (auto it = windows_.find(context); it != windows_.end()) {
    for (const auto& [disp, region] : it->second.regions) Unpublish(region);
  }
  windows_.erase(context);
  published_.erase(published_.lower_bound({context, std::numeric_limits<int>::min()}),
                   published_.upper_bound({context, std::numeric_limits<int>::max()}));
  owned_.erase(context);
  outstanding_.erase(context);
  issued_.erase(context);
  applied_.erase(context);
  applied_by_.erase(context);
  locks_.erase(context);
  active_.erase(context);
}

uint64_t OneSided::Outstanding(uint32_t window) const {
  auto it = outstanding_.find(window);
  return it == outstanding_.end() ? 0 : it->second;
}

uint64_t OneSided::TakeIssued(uint32_t window, int target_world) {
  auto it = issued_.find(window);
  if (it == issued_.end()) return 0;
  auto to = it->second.find(target_world);
  if (to == it->second.end()) return 0;
  const uint64_t n = to->second;
  it->second.erase(to);
  return n;
}

uint64_t OneSided::Applied(uint32_t window) const {
  auto it = applied_.find(window);
  return it == applied_.end() ? 0 : it->second;
}

void OneSided::Put(const void* buf, size_t count, const Datatype& type, int target_world,
                   uint64_t disp, uint32_t window) {
  const size_t len = count * type.size();
  if (!Begin(s_.stats.rma_puts, len, window, target_world, true)) return;
  const std::optional<uint64_t> own = type.dense() ? s_.areas.TaskAddress(buf, len) : std::nullopt;
  if (own && disp < kTagLimit && !s_.outbox.Intranode(target_world)) {
    // From the program's AllocMem buffer: announced, pulled by the target's adapter.
    s_.transport.Announce(
        static_cast<uint32_t>(target_world),
        Wire(static_cast<uint32_t>(MessageKind::kRts), WindowContext(window, WindowOp::kPut)),
        static_cast<uint32_t>(disp), *own, len, [this, window] { Completed(window); });
    return;
  }
  std::vector<uint8_t> bytes = Pack(buf, count, type);
  s_.cpu.Count(bytes.size());
  s_.outbox.Send(target_world, MessageKind::kEager, WindowContext(window, WindowOp::kPut), 0,
                 Framed(PutHeader{disp}, bytes.data(), bytes.size()),
                 [this, window] { Completed(window); });
}

void OneSided::Get(void* buf, size_t count, const Datatype& type, int target_world, uint64_t disp,
                   uint32_t window) {
  const size_t len = count * type.size();
  if (!Begin(s_.stats.rma_gets, len, window, target_world, false)) return;
  const uint64_t id = NewGetId();
  gets_[id] = PendingGet{window, buf, count, type};
  if (ReadDirect(target_world, window, disp, len, id)) return;
  RequestGet(target_world, window, disp, len, id);
}

bool OneSided::ReadDirect(int target_world, uint32_t window, uint64_t disp, uint64_t len,
                          uint64_t id) {
  auto pub = published_.find({window, target_world});
  if (pub == published_.end() || len > s_.transport.config().rdma_chunk ||
      s_.outbox.Intranode(target_world)) {
    return false;
  }
  const Published& p = pub->second;
  // Outside the region: the target refuses it (by message, counted there).
  if (disp < p.disp || disp - p.disp > p.bytes || len > p.bytes - (disp - p.disp)) return false;
  const PendingGet& g = gets_.at(id);
  const uint64_t in_place = g.type.dense() ? s_.areas.TaskAddress(g.buf, len).value_or(0) : 0;
  return s_.transport.Read(
      static_cast<uint32_t>(target_world), p.pvo + (disp - p.disp), len, in_place,
      [this, target_world, window, disp, len, id](bool landed, std::vector<uint8_t> data) {
        if (landed) {
          GetDone(id, data.data(), data.size());
        } else {
          RequestGet(target_world, window, disp, len, id);
        }
      });
}

void OneSided::RequestGet(int target_world, uint32_t window, uint64_t disp, uint64_t len,
                          uint64_t id) {
  const GetRequest request{disp, len, id};
  std::vector<uint8_t> wire(sizeof(request));
  std::memcpy(wire.data(), &request, sizeof(request));
  s_.outbox.Send(target_world, MessageKind::kEager, WindowContext(window, WindowOp::kGetRequest), 0,
                 std::move(wire), nullptr);
}

void OneSided::Accumulate(const void* buf, size_t count, const Datatype& type, Op op,
                          int target_world, uint64_t disp, uint32_t window, Update update) {
  const size_t len = count * type.size();
  if (!Begin(s_.stats.rma_accumulates, len, window, target_world, true)) return;
  std::vector<uint8_t> bytes = Pack(buf, count, type);
  s_.cpu.Count(bytes.size());
  SendAccumulate(target_world, window, disp, op, type.base, update, 0, bytes);
}

void OneSided::FetchAccumulate(const void* buf, const void* compare, void* result, size_t count,
                               const Datatype& type, Update update, Op op, int target_world,
                               uint64_t disp, uint32_t window) {
  const size_t len = count * type.size();
  if (!Begin(s_.stats.rma_accumulates, len, window, target_world, true)) return;
  const uint64_t id = NewGetId();
  gets_[id] = PendingGet{window, result, count, type};
  std::vector<uint8_t> bytes = Pack(buf, count, type);
  if (update == Update::kCompareSwap) {
    const std::vector<uint8_t> against = Pack(compare, count, type);
    bytes.insert(bytes.end(), against.begin(), against.end());
  }
  s_.cpu.Count(bytes.size());
  SendAccumulate(target_world, window, disp, op, type.base, update, id, bytes);
}

bool OneSided::Begin(uint64_t& counter, uint64_t len, uint32_t window, int target_world,
                     bool issues) {
  ++counter;
  if (len == 0) return false;
  Started(window);
  if (issues) Issued(window, target_world);
  return true;
}

uint64_t OneSided::NewGetId() {
  uint64_t id = next_get_++ % kTagLimit;
  if (id == 0) id = next_get_++ % kTagLimit;
  return id;
}

void OneSided::SendAccumulate(int target_world, uint32_t window, uint64_t disp, Op op, Base base,
                              Update update, uint64_t fetch, const std::vector<uint8_t>& payload) {
  const AccumulateHeader h{disp,
                           fetch,
                           static_cast<uint8_t>(op),
                           static_cast<uint8_t>(base),
                           static_cast<uint8_t>(update),
                           {}};
  std::function<void()> done;
  if (fetch == 0) done = [this, window] { Completed(window); };  // else its reply completes it
  s_.outbox.Send(target_world, MessageKind::kEager, WindowContext(window, WindowOp::kAccumulate), 0,
                 Framed(h, payload.data(), payload.size()), std::move(done));
}

void OneSided::Apply(uint8_t* at, const uint8_t* in, size_t len, Update update, Op op, Base base) {
  switch (update) {
    case Update::kCombine:
      Combiner::Of(op, base).apply(at, in, len);
      return;
    case Update::kReplace:
      std::memcpy(at, in, len);
      return;
    case Update::kNoOp:
      return;
    case Update::kCompareSwap:
      if (std::memcmp(at, in + len, len) == 0) std::memcpy(at, in, len);
      return;
  }
}

OneSided::Place OneSided::Target(uint32_t window, uint64_t disp, uint64_t len) {
  auto it = windows_.find(window);
  if (it != windows_.end()) {
    // The region that starts at or before `disp`, if it holds all of the access.
    const std::map<uint64_t, Region>& regions = it->second.regions;
    auto r = regions.upper_bound(disp);
    if (r != regions.begin()) {
      const Region& region = std::prev(r)->second;
      const uint64_t offset = disp - region.disp;
      if (offset <= region.bytes && len <= region.bytes - offset) {
        return Place{region.base + offset, region.task_vaddr != 0 ? region.task_vaddr + offset : 0};
      }
    }
  }
  // A program's error (MPI leaves it undefined): nothing is written, the origin completes.
  ++s_.stats.rma_refused;
  return Place{};
}

void OneSided::OnMessage(int source_world, uint32_t context, std::vector<uint8_t> data) {
  const uint32_t window = WindowOf(context);
  switch (WindowOpOf(context)) {
    case WindowOp::kPut: {
      const std::optional<PutHeader> h = HeaderOf<PutHeader>(data);
      if (!h) break;
      const size_t len = data.size() - sizeof(PutHeader);
      if (uint8_t* at = Target(window, h->disp, len).at) {
        std::memcpy(at, data.data() + sizeof(PutHeader), len);
        s_.cpu.Count(len);
      }
      Applied(window, source_world);
      return;
    }
    case WindowOp::kAccumulate: {
      const std::optional<AccumulateHeader> h = HeaderOf<AccumulateHeader>(data);
      if (!h) break;
      const auto update = static_cast<Update>(h->update);
      const uint8_t* in = data.data() + sizeof(AccumulateHeader);
      const size_t payload = data.size() - sizeof(AccumulateHeader);
      const size_t len = update == Update::kCompareSwap ? payload / 2 : payload;
      std::vector<uint8_t> before;
      if (uint8_t* at = Target(window, h->disp, len).at) {
        if (h->fetch != 0) before.assign(at, at + len);
        Apply(at, in, len, update, static_cast<Op>(h->op), static_cast<Base>(h->base));
        s_.cpu.Count(len + before.size());
      }
      Applied(window, source_world);
      if (h->fetch != 0) {
        s_.outbox.Send(source_world, MessageKind::kEager,
                       WindowContext(window, WindowOp::kGetReply), 0,
                       Framed(GetReplyHeader{h->fetch}, before.data(), before.size()), nullptr);
      }
      return;
    }
    case WindowOp::kGetRequest: {
      const std::optional<GetRequest> r = HeaderOf<GetRequest>(data);
      if (!r) break;
      const Place place = Target(window, r->disp, r->len);
      const uint64_t len = place.at != nullptr ? r->len : 0;
      if (place.task_vaddr != 0 && len > kGetReplyMessageBytes &&
          !s_.outbox.Intranode(source_world)) {
        // The window lies where the adapter reaches it: the origin pulls the bytes.
        s_.transport.Announce(static_cast<uint32_t>(source_world),
                              Wire(static_cast<uint32_t>(MessageKind::kRts),
                                   WindowContext(window, WindowOp::kGetReply)),
                              static_cast<uint32_t>(r->id), place.task_vaddr, len, nullptr);
        return;
      }
      s_.cpu.Count(len);
      s_.outbox.Send(source_world, MessageKind::kEager, WindowContext(window, WindowOp::kGetReply),
                     0, Framed(GetReplyHeader{r->id}, place.at, len), nullptr);
      return;
    }
    case WindowOp::kGetReply: {
      const std::optional<GetReplyHeader> h = HeaderOf<GetReplyHeader>(data);
      if (!h) break;
      GetDone(h->id, data.data() + sizeof(GetReplyHeader), data.size() - sizeof(GetReplyHeader));
      return;
    }
    case WindowOp::kControl:
      if (data.size() < sizeof(ControlHeader)) break;
      OnControl(source_world, window, data);
      return;
    case WindowOp::kPutBlocks:
    case WindowOp::kGetBlocks:
    case WindowOp::kAccumulateBlocks:
      OnBlocks(source_world, window, WindowOpOf(context), data);
      return;
  }
  NICSIM_CHECK(false, "window message of %zu bytes from rank %d is too short for its header",
               data.size(), source_world);
}

void OneSided::OnAnnounced(int source_world, uint32_t context, uint32_t tag, uint64_t total,
                           uint32_t seq) {
  const uint32_t window = WindowOf(context);
  uint64_t in_place = 0;
  Landing landing{window, 0, 0};
  if (WindowOpOf(context) == WindowOp::kGetReply) {
    landing.get = tag;
    auto it = gets_.find(tag);
    NICSIM_CHECK(it != gets_.end(), "a get reply %u from rank %d for no get", tag, source_world);
    const PendingGet& g = it->second;
    if (g.type.dense() && total > 0 && total <= g.count * g.type.size()) {
      in_place = s_.areas.TaskAddress(g.buf, total).value_or(0);
    }
  } else {
    landing.disp = tag;
    const Place place = Target(window, tag, total);
    in_place = place.task_vaddr;
    landing.drop = place.at == nullptr;
  }
  if (in_place != 0) ++s_.stats.rma_in_place;
  landings_[{source_world, seq}] = landing;
  s_.transport.Accept(static_cast<uint32_t>(source_world), seq, in_place);
}

bool OneSided::OnAccepted(int source_world, uint32_t seq, std::vector<uint8_t>& data) {
  auto it = landings_.find({source_world, seq});
  if (it == landings_.end()) return false;
  const Landing landing = it->second;
  landings_.erase(it);
  if (landing.get != 0) {
    GetDone(landing.get, data.data(), data.size());
    return true;
  }
  // Landed in place, dropped (outside the window), or copied in here.
  if (!data.empty() && !landing.drop) {
    // Found again: the memory may have gone since the transfer was announced.
    if (uint8_t* at = Target(landing.window, landing.disp, data.size()).at) {
      std::memcpy(at, data.data(), data.size());
      s_.cpu.Count(data.size());
    }
  }
  Applied(landing.window, source_world);
  return true;
}

void OneSided::Applied(uint32_t window, int source_world) {
  ++applied_[window];
  ++applied_by_[window][source_world];
  MaybeAnswer(window, source_world);
}

void OneSided::GetDone(uint64_t id, const uint8_t* data, size_t len) {
  auto it = gets_.find(id);
  if (it == gets_.end()) return;
  const PendingGet g = it->second;
  gets_.erase(it);
  if (len > 0) {
    Unpack(data, std::min(len, g.count * g.type.size()), g.buf, g.count, g.type);
    s_.cpu.Count(len);
  }
  Completed(g.window);
}

}  // namespace nicsim::mpi
