// SPDX-License-Identifier: Apache-2.0
// A source's answer to a reader's question about a late RDMA read (kRdmaQuery): what the rCxt
// the read named says of it. Messages offered by RTS and read channels answer alike.
#pragma once

#include <cstdint>

#include "abi/rdma.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * The kRdmaStatus header answering `query` from task `self`. `named` is the record of the rCxt
 * the read named, or null when that rCxt no longer serves the read (the message is not offered
 * any more, the channel was closed, the window rebuilt): the read is then not there.
 */
inline Header RdmaStatusAnswer(const Header& query, uint32_t self, const abi::RcxtRecord* named) {
  RdmaReadStatus status = RdmaReadStatus::kNotThere;
  uint32_t sent = 0;
  if (named != nullptr && named->tid == query.context) {
    sent = named->sent;
    // Sent means injected, every packet: the answer then follows them on the way.
    const bool sending =
        named->state == static_cast<uint8_t>(abi::RcxtState::kSending) || named->in_flight > 0;
    status = sending ? RdmaReadStatus::kSending : RdmaReadStatus::kSent;
  }
  Header a{};
  a.kind = static_cast<uint8_t>(Kind::kRdmaStatus);
  a.src_task = self;
  a.seq = query.seq;
  a.offset = query.offset;
  a.context = query.context;
  a.total = static_cast<uint32_t>(status);
  a.tag = sent;
  return a;
}

}  // namespace nicsim::ulp
