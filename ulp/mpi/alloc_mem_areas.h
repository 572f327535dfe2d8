// SPDX-License-Identifier: Apache-2.0
// The areas of a task's memory its program allocated for messages (MPI_Alloc_mem): where the
// adapter reaches a buffer directly, so a message sent from or received into one moves
// without a CPU copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "hal/task_host.h"

namespace nicsim::mpi {

class AllocMemAreas {
 public:
  explicit AllocMemAreas(hal::TaskHost& host) : host_(host) {}

  /** A contiguous area of `bytes` in the task's memory, on a page of its own; nullptr if the
   *  task has no room. */
  void* Alloc(size_t bytes) {
    Result<uint64_t> vaddr = host_.MapContiguous(std::max<size_t>(bytes, 1));
    if (!vaddr.ok()) return nullptr;
    uint8_t* at = host_.Contiguous(*vaddr, std::max<size_t>(bytes, 1));
    if (at == nullptr) return nullptr;
    areas_[reinterpret_cast<uintptr_t>(at)] = {*vaddr, bytes};
    return at;
  }

  /** The task address of [buf, buf + bytes) if it lies in one area. */
  std::optional<uint64_t> TaskAddress(const void* buf, size_t bytes) const {
    const auto p = reinterpret_cast<uintptr_t>(buf);
    auto it = areas_.upper_bound(p);
    if (it == areas_.begin()) return std::nullopt;
    --it;
    const uintptr_t start = it->first;
    const auto [vaddr, len] = it->second;
    if (p - start > len || bytes > len - (p - start)) return std::nullopt;
    return vaddr + (p - start);
  }

 private:
  hal::TaskHost& host_;
  /** Areas by their CPU address: (task address, bytes). */
  std::map<uintptr_t, std::pair<uint64_t, size_t>> areas_;
};

}  // namespace nicsim::mpi
