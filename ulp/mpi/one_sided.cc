// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/one_sided.h"

#include <cstring>
#include <functional>
#include <iterator>
#include <optional>

#include "base/check.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {
namespace {

/** Before the bytes of a put that travels as a message. */
struct PutHeader {
  uint64_t disp;
};
/** Before the bytes of an accumulate. */
struct AccumulateHeader {
  uint64_t disp;
  /** 0, or the get id whose reply carries the elements as they were (a fetching one). */
  uint64_t fetch;
  uint8_t op;
  uint8_t base;
  uint8_t update;
  uint8_t reserved[5];
};
/** A get's request. */
struct GetRequest {
  uint64_t disp;
  uint64_t len;
  uint64_t id;
};
/** Before the bytes of a get's reply that travels as a message. */
struct GetReplyHeader {
  uint64_t id;
};

template <typename Header>
std::vector<uint8_t> Framed(const Header& h, const uint8_t* data, size_t len) {
  std::vector<uint8_t> out(sizeof(h) + len);
  std::memcpy(out.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(out.data() + sizeof(h), data, len);
  return out;
}

/** The header at the front of `data`, if it is long enough for one. */
template <typename Header>
std::optional<Header> HeaderOf(const std::vector<uint8_t>& data) {
  if (data.size() < sizeof(Header)) return std::nullopt;
  Header h;
  std::memcpy(&h, data.data(), sizeof(h));
  return h;
}

/** What a synchronisation message says. */
enum class Control : uint8_t {
  kLock,       // to a target: its lock, please (`exclusive`)
  kGranted,    // to an origin: the lock is yours
  kUnlock,     // to a target: `issued` operations came from me; answer once applied (`release`)
  kAnswered,   // to an origin: they are applied (and the lock given back if released)
  kPosted,     // to an origin: my window is exposed to you (post)
  kCompleted,  // to a target: my access epoch ended after `issued` operations (complete)
};
struct ControlHeader {
  uint64_t issued;
  uint8_t what;
  uint8_t exclusive;
  uint8_t release;
  uint8_t reserved[5];
};

/** A message over several blocks: `head` (a GetRequest or AccumulateHeader, or none), u64
 *  count, count x (u64 displacement, u64 length), then `len` bytes of data. */
std::vector<uint8_t> WithBlocks(const void* head, size_t head_len, const OneSided::Blocks& blocks,
                                const uint8_t* data, size_t len) {
  const uint64_t count = blocks.size();
  std::vector<uint8_t> out(head_len + sizeof(count) + count * 2 * sizeof(uint64_t) + len);
  uint8_t* at = out.data();
  if (head_len > 0) std::memcpy(at, head, head_len);
  at += head_len;
  std::memcpy(at, &count, sizeof(count));
  at += sizeof(count);
  for (const auto& [disp, length] : blocks) {
    std::memcpy(at, &disp, sizeof(disp));
    std::memcpy(at + sizeof(disp), &length, sizeof(length));
    at += 2 * sizeof(uint64_t);
  }
  if (len > 0) std::memcpy(at, data, len);
  return out;
}

/** The blocks of a message WithBlocks made after `head_len` bytes, and where its data starts
 *  (`*data_at`); none if the message is too short for them. */
std::optional<OneSided::Blocks> BlocksOf(const std::vector<uint8_t>& message, size_t head_len,
                                         size_t* data_at) {
  uint64_t count = 0;
  if (message.size() < head_len + sizeof(count)) return std::nullopt;
  std::memcpy(&count, message.data() + head_len, sizeof(count));
  const size_t at = head_len + sizeof(count);
  if (count > (message.size() - at) / (2 * sizeof(uint64_t))) return std::nullopt;
  OneSided::Blocks blocks(count);
  for (uint64_t i = 0; i < count; ++i) {
    std::memcpy(&blocks[i].first, message.data() + at + i * 16, sizeof(uint64_t));
    std::memcpy(&blocks[i].second, message.data() + at + i * 16 + 8, sizeof(uint64_t));
  }
  *data_at = at + count * 2 * sizeof(uint64_t);
  return blocks;
}

uint64_t TotalOf(const OneSided::Blocks& blocks) {
  uint64_t total = 0;
  for (const auto& block : blocks) total += block.second;
  return total;
}

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
  if (bytes > 0) Attach(context, 0, base, bytes);
}

void OneSided::Attach(uint32_t context, uint64_t disp, uint8_t* base, size_t bytes) {
  const uint64_t task_vaddr = bytes > 0 ? s_.areas.TaskAddress(base, bytes).value_or(0) : 0;
  windows_[context].regions[disp] = Region{disp, base, bytes, task_vaddr};
}

void OneSided::Detach(uint32_t context, uint64_t disp) {
  auto it = windows_.find(context);
  if (it != windows_.end()) it->second.regions.erase(disp);
}

uint8_t* OneSided::ExposeOwned(uint32_t context, size_t bytes) {
  std::vector<uint8_t>& memory = owned_[context];
  memory.assign(bytes, 0);
  Expose(context, memory.data(), bytes);
  return memory.data();
}

void OneSided::Forget(uint32_t context) {
  windows_.erase(context);
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

void OneSided::PutBlocks(const uint8_t* packed, const Blocks& blocks, int target_world,
                         uint32_t window) {
  if (blocks.size() == 1) {
    Put(packed, blocks[0].second, kByteType, target_world, blocks[0].first, window);
    return;
  }
  const uint64_t total = TotalOf(blocks);
  if (!Begin(s_.stats.rma_puts, total, window, target_world, true)) return;
  s_.cpu.Count(total);
  s_.outbox.Send(target_world, MessageKind::kEager, WindowContext(window, WindowOp::kPutBlocks), 0,
                 WithBlocks(nullptr, 0, blocks, packed, total),
                 [this, window] { Completed(window); });
}

void OneSided::GetBlocks(uint8_t* packed, const Blocks& blocks, int target_world, uint32_t window) {
  if (blocks.size() == 1) {
    Get(packed, blocks[0].second, kByteType, target_world, blocks[0].first, window);
    return;
  }
  const uint64_t total = TotalOf(blocks);
  if (!Begin(s_.stats.rma_gets, total, window, target_world, false)) return;
  const uint64_t id = NewGetId();
  gets_[id] = PendingGet{window, packed, total, kByteType};
  const GetRequest request{0, total, id};
  s_.outbox.Send(target_world, MessageKind::kEager, WindowContext(window, WindowOp::kGetBlocks), 0,
                 WithBlocks(&request, sizeof(request), blocks, nullptr, 0), nullptr);
}

void OneSided::AccumulateBlocks(const uint8_t* packed, uint8_t* result, const Blocks& blocks,
                                Base base, Update update, Op op, int target_world,
                                uint32_t window) {
  const Datatype element = Datatype::Of(base);
  if (blocks.size() == 1) {
    const size_t count = blocks[0].second / element.size();
    if (result != nullptr) {
      FetchAccumulate(packed, nullptr, result, count, element, update, op, target_world,
                      blocks[0].first, window);
    } else {
      Accumulate(packed, count, element, op, target_world, blocks[0].first, window, update);
    }
    return;
  }
  const uint64_t total = TotalOf(blocks);
  if (!Begin(s_.stats.rma_accumulates, total, window, target_world, true)) return;
  uint64_t fetch = 0;
  if (result != nullptr) {
    fetch = NewGetId();
    gets_[fetch] = PendingGet{window, result, total, kByteType};
  }
  const AccumulateHeader h{
      0, fetch, static_cast<uint8_t>(op), static_cast<uint8_t>(base), static_cast<uint8_t>(update),
      {}};
  s_.cpu.Count(total);
  std::function<void()> done;
  if (fetch == 0) done = [this, window] { Completed(window); };  // else its reply completes it
  s_.outbox.Send(target_world, MessageKind::kEager,
                 WindowContext(window, WindowOp::kAccumulateBlocks), 0,
                 WithBlocks(&h, sizeof(h), blocks, packed, total), std::move(done));
}

void OneSided::OnBlocks(int source_world, uint32_t window, WindowOp op,
                        const std::vector<uint8_t>& data) {
  const size_t head = op == WindowOp::kGetBlocks          ? sizeof(GetRequest)
                      : op == WindowOp::kAccumulateBlocks ? sizeof(AccumulateHeader)
                                                          : 0;
  size_t at = 0;
  const std::optional<Blocks> blocks = BlocksOf(data, head, &at);
  const uint64_t total = blocks ? TotalOf(*blocks) : 0;
  const bool carries = op != WindowOp::kGetBlocks;
  NICSIM_CHECK(blocks && (!carries || data.size() - at == total),
               "window message of %zu bytes from rank %d does not hold its blocks", data.size(),
               source_world);
  if (op == WindowOp::kGetBlocks) {
    const GetRequest r = *HeaderOf<GetRequest>(data);
    std::vector<uint8_t> gathered(total);
    uint64_t offset = 0;
    for (const auto& [disp, len] : *blocks) {
      if (const uint8_t* from = Target(window, disp, len).at) {
        std::memcpy(gathered.data() + offset, from, len);
      }
      offset += len;
    }
    s_.cpu.Count(total);
    s_.outbox.Send(source_world, MessageKind::kEager, WindowContext(window, WindowOp::kGetReply), 0,
                   Framed(GetReplyHeader{r.id}, gathered.data(), gathered.size()), nullptr);
    return;
  }
  const uint8_t* in = data.data() + at;
  std::optional<AccumulateHeader> h;
  if (op == WindowOp::kAccumulateBlocks) h = HeaderOf<AccumulateHeader>(data);
  std::vector<uint8_t> before;
  uint64_t offset = 0;
  for (const auto& [disp, len] : *blocks) {
    uint8_t* to = Target(window, disp, len).at;
    if (h && h->fetch != 0) {
      if (to != nullptr) {
        before.insert(before.end(), to, to + len);
      } else {
        before.resize(before.size() + len);
      }
    }
    if (to != nullptr && h) {
      Apply(to, in + offset, len, static_cast<Update>(h->update), static_cast<Op>(h->op),
            static_cast<Base>(h->base));
    } else if (to != nullptr) {
      std::memcpy(to, in + offset, len);
    }
    offset += len;
  }
  s_.cpu.Count(total + before.size());
  Applied(window, source_world);
  if (h && h->fetch != 0) {
    s_.outbox.Send(source_world, MessageKind::kEager, WindowContext(window, WindowOp::kGetReply), 0,
                   Framed(GetReplyHeader{h->fetch}, before.data(), before.size()), nullptr);
  }
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

void OneSided::SendControl(int world, uint32_t window, uint8_t what, uint64_t issued,
                           bool exclusive, bool release) {
  const ControlHeader h{
      issued, what, static_cast<uint8_t>(exclusive), static_cast<uint8_t>(release), {}};
  s_.outbox.Send(world, MessageKind::kEager, WindowContext(window, WindowOp::kControl), 0,
                 Framed(h, nullptr, 0), nullptr);
}

void OneSided::Lock(uint32_t window, int target_world, bool exclusive) {
  passive_[{window, target_world}] = Passive{};
  SendControl(target_world, window, static_cast<uint8_t>(Control::kLock), 0, exclusive, false);
}

bool OneSided::Granted(uint32_t window, int target_world) const {
  auto it = passive_.find({window, target_world});
  return it != passive_.end() && it->second.granted;
}

void OneSided::Unlock(uint32_t window, int target_world, uint64_t issued, bool release) {
  passive_[{window, target_world}].answered = false;
  SendControl(target_world, window, static_cast<uint8_t>(Control::kUnlock), issued, false, release);
}

bool OneSided::Answered(uint32_t window, int target_world) const {
  auto it = passive_.find({window, target_world});
  return it != passive_.end() && it->second.answered;
}

void OneSided::Post(uint32_t window, const std::vector<int>& origins_world) {
  Active& a = active_[window];
  a.exposed_to = origins_world;
  for (int origin : origins_world) {
    SendControl(origin, window, static_cast<uint8_t>(Control::kPosted), 0, false, false);
  }
}

bool OneSided::PostedBy(uint32_t window, const std::vector<int>& targets_world) const {
  auto it = active_.find(window);
  if (it == active_.end()) return targets_world.empty();
  for (int t : targets_world) {
    auto p = it->second.posted.find(t);
    if (p == it->second.posted.end() || p->second == 0) return false;
  }
  return true;
}

void OneSided::Start(uint32_t window, const std::vector<int>& targets_world) {
  Active& a = active_[window];
  for (int t : targets_world) --a.posted[t];  // each post opens one access epoch
  a.accessing = targets_world;
}

void OneSided::Complete(uint32_t window) {
  Active& a = active_[window];
  for (int t : a.accessing) {
    SendControl(t, window, static_cast<uint8_t>(Control::kCompleted), TakeIssued(window, t), false,
                false);
  }
  a.accessing.clear();
}

bool OneSided::CompletedBy(uint32_t window) {
  Active& a = active_[window];
  std::map<int, uint64_t>& applied = applied_by_[window];
  for (int origin : a.exposed_to) {
    auto c = a.completed.find(origin);
    if (c == a.completed.end() || applied[origin] < c->second) return false;
  }
  // Every origin's epoch ended and its operations are applied: consumed.
  for (int origin : a.exposed_to) {
    applied[origin] -= a.completed[origin];
    applied_[window] -= a.completed[origin];
    a.completed.erase(origin);
  }
  a.exposed_to.clear();
  return true;
}

void OneSided::OnControl(int source_world, uint32_t window, const std::vector<uint8_t>& data) {
  const ControlHeader h = *HeaderOf<ControlHeader>(data);
  switch (static_cast<Control>(h.what)) {
    case Control::kLock:
      locks_[window].waiting.emplace_back(source_world, h.exclusive != 0);
      GrantWaiting(window);
      return;
    case Control::kUnlock:
      unlocks_[{window, source_world}] = {h.issued, h.release != 0};
      MaybeAnswer(window, source_world);
      return;
    case Control::kGranted:
      passive_[{window, source_world}].granted = true;
      return;
    case Control::kAnswered:
      passive_[{window, source_world}].answered = true;
      return;
    case Control::kPosted:
      ++active_[window].posted[source_world];
      return;
    case Control::kCompleted:
      active_[window].completed[source_world] = h.issued;
      return;
  }
  NICSIM_CHECK(false, "window control message %u from rank %d", h.what, source_world);
}

void OneSided::GrantWaiting(uint32_t window) {
  LockState& lock = locks_[window];
  // First come, first served: a shared request behind a waiting exclusive one waits too.
  while (!lock.waiting.empty()) {
    const auto [origin, exclusive] = lock.waiting.front();
    const bool free = lock.exclusive < 0 && (!exclusive || lock.shared.empty());
    if (!free) return;
    if (exclusive) {
      lock.exclusive = origin;
    } else {
      lock.shared.insert(origin);
    }
    lock.waiting.pop_front();
    SendControl(origin, window, static_cast<uint8_t>(Control::kGranted), 0, false, false);
  }
}

void OneSided::MaybeAnswer(uint32_t window, int source_world) {
  auto it = unlocks_.find({window, source_world});
  if (it == unlocks_.end()) return;
  const auto [issued, release] = it->second;
  uint64_t& applied = applied_by_[window][source_world];
  if (applied < issued) return;
  applied -= issued;
  applied_[window] -= issued;
  unlocks_.erase(it);
  if (release) {
    LockState& lock = locks_[window];
    if (lock.exclusive == source_world) {
      lock.exclusive = -1;
    } else {
      lock.shared.erase(source_world);
    }
  }
  SendControl(source_world, window, static_cast<uint8_t>(Control::kAnswered), 0, false, false);
  if (release) GrantWaiting(window);
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
