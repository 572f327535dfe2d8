// SPDX-License-Identifier: Apache-2.0
#include "firmware/tce.h"

#include <algorithm>
#include <cstring>

#include "abi/rdma.h"

namespace nicsim::fw {

TceVerdict PlanTranslation(Platform& platform, uint64_t pvo, uint64_t len, uint32_t job,
                           TcePlan* plan) {
  abi::TceTableDesc desc;
  platform.SramRead(abi::TceDescAddr(abi::PvoTable(pvo)), &desc, sizeof(desc));
  if (desc.owner_job == abi::kNoJob || desc.owner_job != job) return TceVerdict::kNotOwner;
  if (desc.page_shift == 0) return TceVerdict::kException;
  const uint64_t offset = abi::PvoOffset(pvo);
  // The access must not carry out of the PVO's offset field (nor wrap 64 bits).
  if (len > abi::kPvoOffsetMask || offset + len > abi::kPvoOffsetMask + 1) {
    return TceVerdict::kException;
  }
  const uint64_t first = offset >> desc.page_shift;
  const uint64_t last = len == 0 ? first : (offset + len - 1) >> desc.page_shift;
  if (last >= desc.entries) return TceVerdict::kException;
  plan->entry_addr = desc.base_addr + first * sizeof(abi::TceEntry);
  plan->count = static_cast<uint32_t>(last - first + 1);
  plan->page_shift = desc.page_shift;
  return TceVerdict::kOk;
}

void StartTceFetch(Platform& platform, Counters& counters, Task& task, const TcePlan& plan) {
  task.tce_addr = plan.entry_addr;
  task.tce_count = plan.count;
  task.page_shift = plan.page_shift;
  DmaFromHost dma;
  dma.host_addr = plan.entry_addr;
  dma.len = plan.count * sizeof(abi::TceEntry);
  dma.target = DmaTarget::kHeaderBuffer;
  dma.header_buffer = task.header_buffer;
  dma.tag = task.id;
  platform.StartDmaFromHost(dma);
  ++counters.tce_fetches;
}

TceVerdict FinishTranslation(const TcePlan& plan, const uint8_t* entries, uint64_t pvo,
                             uint32_t len, Task& task) {
  const uint64_t page = uint64_t{1} << plan.page_shift;
  uint64_t offset = abi::PvoOffset(pvo);
  uint32_t left = len;
  task.segment_count = 0;
  for (uint32_t i = 0; i < plan.count; ++i) {
    abi::TceEntry tce;
    std::memcpy(&tce, entries + i * sizeof(tce), sizeof(tce));
    if (!(tce.flags & abi::kTceValid) || tce.key != abi::TceKeyFor(pvo)) {
      return TceVerdict::kException;
    }
    if (left == 0) continue;
    if (i >= sizeof(task.segments) / sizeof(task.segments[0])) return TceVerdict::kException;
    const uint64_t in_page = offset & (page - 1);
    const uint32_t take = static_cast<uint32_t>(std::min<uint64_t>(left, page - in_page));
    task.segments[task.segment_count++] = Task::Segment{tce.real_addr + in_page, take};
    offset += take;
    left -= take;
  }
  return TceVerdict::kOk;
}

}  // namespace nicsim::fw
