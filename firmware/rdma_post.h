// SPDX-License-Identifier: Apache-2.0
// RDMA requests from the send FIFO that need no DMA of their own: RDMA write (the rCxt is
// set up and queued on the window's send list), RDMA read and third-party read (a request
// packet to the data source), cancel, arming a landing rCxt, and the conditional queue
// commands.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/fifo.h"
#include "abi/lmt.h"
#include "abi/rdma.h"
#include "firmware/internal.h"

namespace nicsim::fw {

/** Whether the adapter took responsibility for a request. */
enum class PostOutcome : uint8_t { kAccepted, kRejected };

/** What a request leaves for the task that posted it to report. */
struct PostReport {
  /** kCounterQuery: the counter. */
  uint32_t query = 0;
  /** kRcxtCancel stopped a transfer in progress: the ULP is owed a completion record with
   *  RdmaStatus::kCancelled for it (the rCxt's tid, tag, and the bytes it had sent). */
  bool cancelled = false;
  uint32_t tid = 0;
  uint32_t tag = 0;
  uint32_t length = 0;
};

/**
 * Runs one request of `window` (kRdmaWrite, kRdmaRead, kThirdPartyRead, kConditional,
 * kCounterSet, kCounterQuery, kRcxtCancel, kRcxtArm). `lmt` is the window's current LMT.
 * `report` (may be null) receives what the task reports back (PostReport).
 */
PostOutcome RunRequest(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                       const abi::SendSlotHeader& slot, const abi::RdmaRequest& request,
                       PostReport* report);

/** One more completion on conditional queue `queue`: bump its counter, fire what is due. */
void BumpConditional(Context& ctx, const Task& task, uint32_t queue);

/** What an rCxt needs to become a data source (a write posted here, a read served here). */
struct SourceSetup {
  uint8_t flags = 0;
  uint8_t cond_queue = 0;
  uint32_t tid = 0;
  uint64_t src_pvo = 0;
  uint64_t dst_pvo = 0;
  uint32_t length = 0;
  uint16_t dest_adapter = 0;
  uint16_t dest_window = 0;
  uint16_t notify_adapter = 0;
  uint16_t notify_window = 0;
  uint32_t peer_rcxt = 0;
  uint32_t notify_rcxt = 0;
  uint32_t tag = 0;
};
/** Makes rCxt `index` (loaded in `rec`) a source and queues it on the window's send list. */
void StartSource(Context& ctx, const Task& task, uint32_t window, abi::LmtEntry& lmt,
                 uint32_t index, abi::RcxtRecord& rec, const SourceSetup& s);

/**
 * Half receive write: a kRdmaWritePiece whose initiator asked for its completion makes the
 * initiator's rCxt (`request.local_rcxt`) wait for it. The first piece of a tid arms it; the
 * other pieces of the same tid find it armed. Rejected (counted) if the rCxt is not this
 * window's or is sending or receiving.
 */
PostOutcome ArmPieceInitiator(Context& ctx, const Task& task, uint32_t window,
                              const abi::SendSlotHeader& slot, const abi::RdmaRequest& request);

/** WireHeader flags of the data packets of an RDMA write request. */
uint8_t WriteDataFlags(const abi::RdmaRequest& request);

/** True for slot types whose body is an abi::RdmaRequest. */
inline bool IsRequestSlot(uint8_t type) {
  return type >= static_cast<uint8_t>(abi::SlotType::kRdmaWrite) &&
         type <= static_cast<uint8_t>(abi::SlotType::kRcxtArm);
}

}  // namespace nicsim::fw
