// SPDX-License-Identifier: Apache-2.0
// The block service's packet layout, shared by its two source files (block_service.cc and
// block_service_fetch.cc); nothing else reads it.
#pragma once

#include <cstdint>

#include "ulp/dlm/block_service.h"

namespace nicsim::ulp {

/** The service's packets: a request (requester -> manager) and its answer, "done"; with
 *  kFetchOrder also the manager's order and the requester's report that it has the block. */
struct BlockServiceNode::Message {
  enum Kind : uint8_t { kRequest = 1, kDone = 2, kOrder = 3, kReport = 4 };
  uint8_t kind;
  uint8_t reserved[3];
  /** The sending node. */
  uint32_t node;
  uint64_t request;
  uint32_t block;
  /** Request: the requester's landing slot. */
  uint32_t slot;
  /** Request: the landing slot's PVO (the data target); order: the block's PVO at its owner. */
  uint64_t pvo;
  /** Request: the landing slot's rCxt; order: the owner's source rCxt for this manager. */
  uint32_t rcxt;
  /** Order: the first of the tids set aside for the requester's reads. */
  uint32_t tid;
};
static_assert(sizeof(BlockServiceNode::Message) == 40, "block service packet layout");

}  // namespace nicsim::ulp
