// SPDX-License-Identifier: Apache-2.0
// RDMA layouts shared by the driver, the HAL and the microcode: protocol virtual offsets,
// TCE entries and table descriptors, rCxt references and records, the requests the ULP
// posts in the send FIFO and the records the adapter writes into the receive FIFO.
#pragma once

#include <cstdint>

#include "abi/limits.h"
#include "abi/mmio.h"

namespace nicsim::abi {

// ---------------------------------------------------------------------------------------
// Protocol virtual offsets (PVO).
//
//   63          47 46    42 41                                  0
//   +-------------+--------+-------------------------------------+
//   |  key (17)   | table  |  byte offset in the table's space   |
//   +-------------+--------+-------------------------------------+
//
// The byte offset is tce_index * page_size + offset within the page, so a protocol may add
// a byte count to a PVO to address any byte of a registered buffer. An offset that carries
// out of the low 42 bits is an addressing error (the wrap check).

inline constexpr uint32_t kPvoOffsetBits = 42;
inline constexpr uint32_t kPvoTableBits = 5;
inline constexpr uint32_t kPvoKeyBits = 17;
inline constexpr uint64_t kPvoOffsetMask = (uint64_t{1} << kPvoOffsetBits) - 1;
/** TCE tables an adapter can reach (the PVO's table field). */
inline constexpr uint32_t kTceTables = 1u << kPvoTableBits;

inline constexpr uint64_t MakePvo(uint32_t key, uint32_t table, uint64_t offset) {
  return (uint64_t{key & ((1u << kPvoKeyBits) - 1)} << (kPvoOffsetBits + kPvoTableBits)) |
         (uint64_t{table & (kTceTables - 1)} << kPvoOffsetBits) | (offset & kPvoOffsetMask);
}
inline constexpr uint32_t PvoKey(uint64_t pvo) {
  return static_cast<uint32_t>(pvo >> (kPvoOffsetBits + kPvoTableBits));
}
inline constexpr uint32_t PvoTable(uint64_t pvo) {
  return static_cast<uint32_t>((pvo >> kPvoOffsetBits) & (kTceTables - 1));
}
inline constexpr uint64_t PvoOffset(uint64_t pvo) { return pvo & kPvoOffsetMask; }
/** The 22-bit key a TCE must hold for a PVO to reach it: PVO key and table index together. */
inline constexpr uint32_t TceKeyFor(uint64_t pvo) {
  return PvoKey(pvo) | (PvoTable(pvo) << kPvoKeyBits);
}

// ---------------------------------------------------------------------------------------
// TCE tables: node-global, in host (hypervisor) memory, written by the driver, read by the
// adapters with DMA.

/** Page sizes a TCE table can map (log2 of bytes). */
inline constexpr uint32_t kPageShift4K = 12;
inline constexpr uint32_t kPageShift64K = 16;
inline constexpr uint32_t kPageShift16M = 24;

inline constexpr uint32_t kTceValid = 1;

/** One translation control entry (host memory, little endian). */
struct TceEntry {
  /** Real address of the page (aligned to the table's page size). */
  uint64_t real_addr;
  /** TceKeyFor() of the PVOs that may use this entry. */
  uint32_t key;
  /** kTceValid while the page is registered. */
  uint32_t flags;
};
static_assert(sizeof(TceEntry) == 16, "TCE layout");

/** JOBID value that owns nothing: a table is unusable until a job reserves it. */
inline constexpr uint32_t kNoJob = 0;

/** Where one TCE table lives and who owns it (adapter SRAM, written by the driver). */
struct TceTableDesc {
  uint64_t base_addr;
  uint32_t entries;
  /** log2 of the page size the table maps; 0 while the table is not configured. */
  uint32_t page_shift;
  /** JOBID allowed to use the table (kNoJob: none). */
  uint32_t owner_job;
  uint32_t reserved[3];
};
static_assert(sizeof(TceTableDesc) == 32, "TCE descriptor layout");

// ---------------------------------------------------------------------------------------
// rCxt: one active RDMA operation's state, kept in adapter SRAM.

/** An rCxt reference as packets and requests carry it: pool index and the key it was given. */
inline constexpr uint32_t kRcxtIndexBits = 20;
inline constexpr uint32_t kRcxtIndexMask = (1u << kRcxtIndexBits) - 1;
inline constexpr uint32_t kRcxtKeyMask = (1u << (32 - kRcxtIndexBits)) - 1;
inline constexpr uint32_t MakeRcxtRef(uint32_t index, uint32_t key) {
  return (index & kRcxtIndexMask) | ((key & kRcxtKeyMask) << kRcxtIndexBits);
}
inline constexpr uint32_t RcxtIndex(uint32_t ref) { return ref & kRcxtIndexMask; }
inline constexpr uint32_t RcxtKey(uint32_t ref) { return ref >> kRcxtIndexBits; }
/**
 * Key bit of the rCxts a multicast group reserves (the rest of their key is the recovery count,
 * as for any rCxt): a group's reference never matches an ordinary rCxt at the same index, so a
 * broadcast reaching an adapter where that index is in ordinary use is dropped there.
 */
inline constexpr uint32_t kRcxtGroupKey = (kRcxtKeyMask + 1) >> 1;
/** No rCxt (no completion is owed to the other side). */
inline constexpr uint32_t kNoRcxt = 0xFFFFFFFFu;

/** What an rCxt is doing. */
enum class RcxtState : uint8_t {
  /** Not handed to any window by the driver. */
  kFree = 0,
  /** Owned by a window, no operation in progress. */
  kIdle = 1,
  /** Data source: packets are being sent (queued on the window's rCxt list). */
  kSending = 2,
  /** Data target: packets of transfer `tid` are landing. */
  kReceiving = 3,
  /** Initiator: a request was posted; a completion is awaited. */
  kAwaiting = 4,
};

/** Flags of an RdmaRequest (what the ULP asks for, in its own terms). */
inline constexpr uint8_t kReqNotifyInitiator = 0x01;  // the initiator's window gets a completion
inline constexpr uint8_t kReqNotifyTarget = 0x02;     // the other side's window gets one
inline constexpr uint8_t kReqRemoteFifo = 0x04;       // half RDMA: the remote side uses its FIFO
inline constexpr uint8_t kReqLocalFifo = 0x08;        // half RDMA read: the data lands in our FIFO
inline constexpr uint8_t kReqConditional = 0x10;      // our completion bumps a conditional counter

/** WireHeader::flags of RDMA packets (in terms of the data's direction). */
inline constexpr uint8_t kWireNotifySender = 0x01;  // completion packet to src, naming aux
inline constexpr uint8_t kWireNotifySink = 0x02;    // completion into the data sink's FIFO
inline constexpr uint8_t kToFifo = 0x04;            // half RDMA: lands in the receive FIFO
inline constexpr uint8_t kLastPacket = 0x08;        // the packet that ends the transfer
inline constexpr uint8_t kThirdParty = 0x10;        // src names the manager, not the source
inline constexpr uint8_t kWireDataToFifo = 0x20;    // read request: send the data with kToFifo

/** RcxtRecord::flags bits beyond the wire flags it copies. */
inline constexpr uint8_t kRcxtConditional = 0x80;
/** Armed by its owner (SlotType::kRcxtArm): a transfer landing here bumps cond_queue. */
inline constexpr uint8_t kRcxtArmed = 0x40;

/** True if tid `a` was issued before tid `b` (tids wrap: compared as a signed difference). */
inline constexpr bool TidBefore(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) < 0; }

/** One rCxt in adapter SRAM (little endian). */
struct RcxtRecord {
  /** An RcxtState value. */
  uint8_t state;
  /** Wire flags of the current operation, plus kRcxtConditional. */
  uint8_t flags;
  /** Conditional queue whose counter this rCxt's completion bumps. */
  uint8_t cond_queue;
  /** Source: packets claimed by transmit tasks and not yet injected. */
  uint8_t in_flight;
  /** Window the driver assigned the rCxt to. */
  uint16_t window;
  /** Key: the adapter's recovery count when the rCxt was assigned. */
  uint16_t key;
  /** Transaction id of the current (or last) operation. */
  uint32_t tid;
  /** Next rCxt on the window's send list (kNoRcxt ends it). */
  uint32_t next;
  /** Source: local PVO the data comes from. */
  uint64_t src_pvo;
  /** Source: PVO at the data target the data goes to. */
  uint64_t dst_pvo;
  /** Bytes of the operation. */
  uint32_t length;
  /** Source: bytes handed to transmit tasks so far. */
  uint32_t sent;
  /** Source: the data target adapter and window. */
  uint16_t dest_adapter;
  uint16_t dest_window;
  /** Source: who gets the sender-side completion (this window, or a third-party manager). */
  uint16_t notify_adapter;
  uint16_t notify_window;
  /** Source: the target's rCxt reference. */
  uint32_t peer_rcxt;
  /** Upper-layer tag carried into completions. */
  uint32_t tag;
  /** Source: the rCxt reference the sender-side completion names. */
  uint32_t notify_rcxt;
};
static_assert(sizeof(RcxtRecord) == 64, "rCxt layout");

// ---------------------------------------------------------------------------------------
// Adapter SRAM layout beyond the LMTs.

/** TCE table descriptors follow the LMTs. */
inline constexpr uint32_t kTceDescBase = kLmtBaseAddr + kMaxWindows * kLmtStrideBytes;
inline constexpr uint32_t TceDescAddr(uint32_t table) {
  return kTceDescBase + table * static_cast<uint32_t>(sizeof(TceTableDesc));
}
/** The rCxt pool starts here; the pool size is an adapter parameter. */
inline constexpr uint32_t kRcxtBase = 0x10000;
inline constexpr uint32_t RcxtAddr(uint32_t index) {
  return kRcxtBase + index * static_cast<uint32_t>(sizeof(RcxtRecord));
}
/** Default rCxts per adapter. */
inline constexpr uint32_t kDefaultRcxts = 100'000;
/**
 * The most rCxts an adapter can have: the pool must end where the MMIO map's SRAM window ends
 * (kMmioWindowBase, 16 MiB), since the driver reaches every rCxt through that window; one more
 * would lie under the first window's doorbells.
 */
inline constexpr uint32_t kMaxRcxts =
    static_cast<uint32_t>((kMmioWindowBase - kRcxtBase) / sizeof(RcxtRecord));
/** SRAM bytes an adapter with `rcxts` contexts needs. */
inline constexpr uint64_t SramBytesFor(uint32_t rcxts) {
  const uint64_t end = kRcxtBase + uint64_t{rcxts} * sizeof(RcxtRecord);
  return end > kSramBytes ? end : kSramBytes;
}

// ---------------------------------------------------------------------------------------
// Send FIFO requests (after the SendSlotHeader; the slot header's type is a SlotType).

/** What a send slot asks for. */
enum class SlotType : uint8_t {
  kFifo = 1,             // a packet-mode packet (PacketType::kFifo)
  kRdmaWrite = 16,       // RDMA write: local source -> remote target
  kRdmaRead = 17,        // RDMA read: remote source -> local target
  kThirdPartyRead = 18,  // ask a remote source to write to a third adapter
  kRdmaWritePiece = 19,  // half RDMA: one packet of an RDMA write, its data in the slot
  kConditional = 20,     // park the request until a conditional counter reaches a value
  kCounterSet = 21,      // set a conditional counter (count = value)
  kCounterQuery = 22,    // read a counter; the adapter writes it into the slot's ulp_word
  kRcxtCancel = 23,      // cancel whatever the local rCxt is doing
  kRcxtArm = 24,         // arm a landing rCxt: each transfer landing on it bumps a counter
};

/** The request body that follows the slot header for every RDMA slot type. */
struct RdmaRequest {
  /** This window's rCxt (the completion names it; for reads the data lands through it). */
  uint32_t local_rcxt;
  /** The remote side's rCxt. */
  uint32_t remote_rcxt;
  uint32_t tid;
  /** Bytes of the whole transfer. */
  uint32_t length;
  uint64_t local_pvo;
  uint64_t remote_pvo;
  /** kReq* flags. */
  uint8_t flags;
  /** Conditional queue: for kReqConditional completions and the kConditional, kCounter* and
   *  kRcxtArm slots. */
  uint8_t cond_queue;
  /** kConditional slots: the type of the parked request (kRdmaWrite or kRdmaRead). */
  uint8_t parked_type;
  uint8_t reserved0;
  /** kConditional: fire when the counter reaches this; kCounterSet: the new value; write
   *  piece: this piece's offset in the transfer. */
  uint32_t count;
  /** Third-party read: the data target adapter, window, rCxt and PVO. */
  uint16_t third_adapter;
  uint16_t third_window;
  uint32_t third_rcxt;
  uint64_t third_pvo;
};
static_assert(sizeof(RdmaRequest) == 56, "RDMA request layout");

/**
 * Bytes of a send slot the microcode fetches first, in one DMA: the slot header and, for an
 * RDMA request, its body (for a packet, the first payload bytes, fetched again with the rest).
 */
inline constexpr uint32_t kSlotFetchBytes =
    kSendHeaderBytes + static_cast<uint32_t>(sizeof(RdmaRequest));

/** Conditional counters (and queues) per adapter. */
inline constexpr uint32_t kConditionalQueues = 16;

// ---------------------------------------------------------------------------------------
// What RDMA puts in the receive FIFO (after the RecvFrameHeader).

/** Status of an RDMA completion record. */
enum class RdmaStatus : uint32_t { kOk = 0, kCancelled = 1 };

/** Frame payload of a PacketType::kRdmaCompletion frame. */
struct CompletionRecord {
  /** The rCxt the completion names (the recipient's). */
  uint32_t rcxt;
  uint32_t tid;
  uint32_t length;
  /** An RdmaStatus value. */
  uint32_t status;
};
static_assert(sizeof(CompletionRecord) == 16, "completion record layout");

/**
 * Prefix of a frame that holds RDMA data in the receive FIFO (half RDMA) or an RDMA read
 * request handed to the ULP: it makes the frame self-describing.
 */
struct RdmaFrameInfo {
  uint32_t rcxt;
  uint32_t tid;
  /** Data: this packet's offset in the transfer. Read request: bytes asked for. */
  uint32_t offset;
  /** WireHeader flags of the packet (kLastPacket marks the end of a transfer). */
  uint32_t flags;
};
static_assert(sizeof(RdmaFrameInfo) == 16, "RDMA frame info layout");

/** The first payload bytes of a read request: where the data must go. */
struct ReadRequestExt {
  /** PVO at the data target. */
  uint64_t sink_pvo;
  uint16_t sink_adapter;
  uint16_t sink_window;
  /** The data target's rCxt. */
  uint32_t sink_rcxt;
};
static_assert(sizeof(ReadRequestExt) == 16, "read request extension layout");

/** Payload bytes an RDMA data packet carries at most (into memory). */
inline constexpr uint32_t kRdmaPacketBytes = 2048;
/** Payload an RDMA data packet bound for a receive FIFO carries at most. */
inline constexpr uint32_t MaxFifoRdmaPayload(uint32_t line_bytes) {
  return MaxPacketPayload(line_bytes) - static_cast<uint32_t>(sizeof(RdmaFrameInfo));
}
/** Data bytes a kRdmaWritePiece slot carries at most. */
inline constexpr uint32_t MaxPieceBytes(uint32_t line_bytes) {
  return SendSlotBytes(line_bytes) - kSendHeaderBytes - static_cast<uint32_t>(sizeof(RdmaRequest));
}

/** Destination adapter id that the switch replicates to every other adapter. */
inline constexpr uint16_t kBroadcastAdapter = 0xFFFF;

}  // namespace nicsim::abi
