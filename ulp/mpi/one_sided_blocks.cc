// SPDX-License-Identifier: Apache-2.0
// One-sided operations over several blocks of a target's window (a target datatype with gaps):
// one message whose blocks the target's CPU places, gathers or combines.
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "base/check.h"
#include "ulp/mpi/one_sided.h"
#include "ulp/mpi/one_sided_wire.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

using namespace one_sided_wire;  // NOLINT(google-build-using-namespace): this file's messages

namespace {

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

}  // namespace

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

}  // namespace nicsim::mpi
