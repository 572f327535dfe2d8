// SPDX-License-Identifier: Apache-2.0
// The microcode's public names and values: the kinds of task, what a task may wait for, the
// states receive, transmit and work manager tasks pass through (each with its name table), and the
// buffer manager's response. Traces, timelines and diagnostics read these; the engines themselves
// stay behind microcode.h.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/counter_table.h"
#include "firmware/platform.h"

namespace nicsim::fw {

/** Receive and transmit tasks come and go; the pool's one work manager task stays allocated. */
enum class TaskKind : uint8_t { kRx, kTx, kWork };

/** Resources a task can wait for. */
enum class Resource : uint8_t {
  kNone,
  kDtb,
  kHeaderBuffer,
  kChannelBuffer,
  kLinkSlot,
  kCount,
};

/** Each Resource, in enum order: its key in an adapter's stats.json "waits" (counts of task
 *  suspensions; "none" is never reported) and what it is. */
inline constexpr std::array<CounterDoc, static_cast<size_t>(Resource::kCount)> kResources = {{
    {"none", "no resource"},
    {"dtb", "a data transfer buffer (payload staging, one receive frame)"},
    {"header_buffer", "a header buffer for an outgoing packet"},
    {"channel_buffer", "a channel buffer (the window's LMT cache)"},
    {"link_slot", "room in the link's output queue"},
}};

inline constexpr auto kResourceNames = NamesOf(kResources);

/** Receive task states, in the order a packet passes through them. */
enum class RxState : uint8_t {
  kValidate,       // header in task registers: checks that need no window state
  kBind,           // bind the window's channel buffer (may wait for a free CB)
  kAdmit,          // window checks against the LMT; reserve a frame; early interrupt
  kMoveBody,       // payload staged: DMA all but the first cache line
  kSignal,         // body coherent: DMA the first cache line (header + first bytes)
  kFinish,         // all coherent: advance the tail, maybe interrupt
  kDiscard,        // dropped after the header was accepted: wait for the payload, then free it
  kRdmaAdmit,      // RDMA: rCxt, tid and duplicate checks; read requests and completions end here
  kRdmaTranslate,  // RDMA data: check the PVO's table; fetch its TCEs
  kRdmaPlace,      // RDMA data: check the TCEs; wait for the payload
  kRdmaMove,       // RDMA data: DMA the payload to its real pages
  kRdmaLanded,     // RDMA data coherent: maybe the transfer is complete
  kRdmaNotify,     // write a completion record into the window's receive FIFO
  kRdmaNotified,   // the completion record is coherent
  kRdmaFifoAdmit,  // half RDMA data bound for the FIFO that owes a completion: rCxt, tid
                   // and duplicate checks, then a frame; it leaves through kRdmaLanded
  kDone,           // released; not a runnable state
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(RxState::kCount)> kRxStateNames =
    {"validate",    "bind",          "admit",           "move_body",  "signal",    "finish",
     "discard",     "rdma_admit",    "rdma_translate",  "rdma_place", "rdma_move", "rdma_landed",
     "rdma_notify", "rdma_notified", "rdma_fifo_admit", "done"};

constexpr std::string_view ToString(RxState s) { return kRxStateNames[static_cast<size_t>(s)]; }

/** Transmit task states. */
enum class TxState : uint8_t {
  kSelect,          // take the next ready window, bind its CB and claim a slot
  kFetchHeader,     // get a header buffer; DMA the slot header into it
  kFetchBody,       // check the slot header; get a DTB; DMA the payload into it
  kInject,          // build the wire header (with the window's key) and transmit
  kMarkDone,        // rewrite the slot header with a completion status
  kFinish,          // count the completion, maybe interrupt, release, look for more work
  kPost,            // RDMA request slot: act on the request (or load a write piece's data)
  kRdmaTranslate,   // RDMA data packet: check the source PVO's table; fetch its TCEs
  kRdmaCheck,       // check the TCEs; find the real pages
  kRdmaLoad,        // get a DTB; DMA the packet's data from its real pages
  kRdmaInject,      // build the self-describing header and transmit
  kCancelNotify,    // a cancel stopped a transfer: write its kCancelled completion record
  kCancelNotified,  // the record is in the receive FIFO: make it visible
  kDone,            // no ready window: the task goes back to the pool
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(TxState::kCount)> kTxStateNames =
    {"select",      "fetch_header",  "fetch_body",      "inject",     "mark_done",
     "finish",      "post",          "rdma_translate",  "rdma_check", "rdma_load",
     "rdma_inject", "cancel_notify", "cancel_notified", "done"};

constexpr std::string_view ToString(TxState s) { return kTxStateNames[static_cast<size_t>(s)]; }

/** Work manager task states: it runs when a StartTransmit found every transmit task busy. */
enum class WorkState : uint8_t {
  kPost,  // add the queued StartTransmit counts to readyToSend and set the ready bits
  kDone,  // nothing queued: idle until notified (the task stays allocated)
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(WorkState::kCount)>
    kWorkStateNames = {"post", "idle"};

constexpr std::string_view ToString(WorkState s) { return kWorkStateNames[static_cast<size_t>(s)]; }

/** The buffer manager response for a window: its CB and the tasks bound to it. */
struct BufferManagerResponse {
  CbId cb = kNoCb;
  uint32_t rx_tasks = 0;
  uint32_t tx_tasks = 0;
};

}  // namespace nicsim::fw
