// SPDX-License-Identifier: Apache-2.0
// A lock-manager style block service over third-party RDMA (reference 002, "Third party"):
// each node owns some blocks, manages others and requests blocks it has neither. A requester
// asks the block's manager by one packet; the manager posts a third-party read to the owner's
// adapter naming the requester's landing slot as the data target; the owner's adapter writes
// the block straight into the requester's memory and the completion comes to the manager,
// which tells the requester by one packet. Neither the owner's nor the requester's software
// takes part in moving the data.
//
// Over a lossy fabric: a requester resends its request until the manager's "done" comes (the
// manager answers a request it has finished with "done" again); the manager redrives a read
// whose completion has not come with a newer tid. Every rCxt a manager's reads touch (its own,
// the owner's source rCxts and the requester's landing rCxts) is set aside for that manager
// alone, so the manager's one tid counter keeps each of them rising.
//
// The point-to-point way to do the same (BlockTransfer::kFetchOrder, for comparison): the
// manager answers a request with an order naming where the block is and the tids to use; the
// requester reads the block from the owner itself, then reports to the manager, which
// answers "done". One more handshake per block, and the requester's software takes part twice.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "base/backoff.h"
#include "base/status.h"
#include "hal/peer.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "hal/task_timers.h"

namespace nicsim::ulp {

/** How a block gets from its owner to its requester. */
enum class BlockTransfer : uint8_t {
  /** The manager posts a third-party read; the completion comes to the manager. */
  kThirdParty,
  /** The manager orders the requester to read the block from the owner itself. */
  kFetchOrder,
};

/** The service's shape: the same on every node. */
struct BlockServiceConfig {
  BlockTransfer transfer = BlockTransfer::kThirdParty;
  uint32_t nodes = 3;
  uint32_t blocks = 64;
  uint32_t block_bytes = 64 << 10;
  /** Landing slots each requester sets aside per manager, and source rCxts each owner sets
   *  aside per manager: a requester's requests in flight to one manager. */
  uint32_t slots = 2;
  /** A manager redrives a read whose completion has not come for this long; a requester
   *  resends a request after twice this with no "done". Each wait doubles the one before,
   *  up to 32 times this (see Wait). */
  uint64_t timeout_ps = 1'000'000'000;
  /** Third-party reads per request (manager), or request packets (requester), at most. */
  uint32_t max_tries = 64;
};

/** rCxts of the manager's that one read's posts take turns on. */
inline constexpr uint32_t kRcxtsPerRead = 4;
/** How a wait grows: doubled per try, at most 5 times (32 times the timeout). */
inline constexpr Backoff kBlockBackoff{5};

/** The node that manages block `block`: the lock table for it lives there. */
inline uint32_t BlockManager(uint32_t block, uint32_t nodes) { return block % nodes; }
/** The node that holds block `block`'s data: never its manager (with 2 nodes or more). */
inline uint32_t BlockOwner(uint32_t block, uint32_t nodes) {
  return (block + 1 + (block / nodes) % (nodes - 1)) % nodes;
}

/**
 * What a node publishes when the service starts (a job-start exchange; the workload hands
 * every node every entry): where its owned blocks are and the rCxts it set aside for each
 * manager's reads from them.
 */
struct BlockDirectoryEntry {
  hal::Peer peer;
  /** PVO of the node's first owned block; the others follow in block order. */
  uint64_t blocks_pvo = 0;
  /** [manager * slots + i]: source rCxts for manager `manager`'s reads. */
  std::vector<uint32_t> source_rcxts;
};

/** One node's counts (the workload sums them). */
struct BlockServiceStats {
  /** Requester: requests made, request packets sent (first sends and resends). */
  uint64_t requests = 0;
  uint64_t request_packets = 0;
  uint64_t request_resends = 0;
  /** Requester: blocks that arrived ("done" for a request in flight). */
  uint64_t blocks_received = 0;
  /** Requester: "done" packets for requests already finished (duplicates, resent answers). */
  uint64_t duplicate_dones = 0;
  /** Requester: requests abandoned after max_tries sends. */
  uint64_t requests_abandoned = 0;
  /** Manager: distinct requests taken on; copies of requests already taken on. */
  uint64_t requests_managed = 0;
  uint64_t duplicate_requests = 0;
  /** Manager: third-party reads posted (first posts and redrives), and the redrives. */
  uint64_t third_party_reads = 0;
  uint64_t redrives = 0;
  /** Manager: completions of its reads, and the bytes they moved. */
  uint64_t completions = 0;
  /** Manager: completions of an earlier post than the latest (the redrive was not needed):
   *  the block is there all the same. */
  uint64_t early_completions = 0;
  /** Manager: completions of a redrive that came after its request was done (harmless). */
  uint64_t late_completions = 0;
  uint64_t bytes_moved = 0;
  /** Manager: "done" packets sent (first answers and answers to resent requests). */
  uint64_t dones_sent = 0;
  /** Manager: reads given up after max_tries posts. */
  uint64_t reads_abandoned = 0;
  /** Completion records that no read of this node's could have sent (an error). */
  uint64_t stray_completions = 0;
  /** Records with status cancelled: a read this node cancelled before redriving it. */
  uint64_t cancel_notices = 0;
  /** Requester (kThirdParty): blocks delivered at its own adapter's completion record, before
   *  the manager's "done"; records of an earlier request's read landing in the slot. */
  uint64_t landed_before_done = 0;
  uint64_t late_landings = 0;
  // kFetchOrder only.
  /** Manager: orders sent (first answers and answers to resent requests). */
  uint64_t orders_sent = 0;
  /** Requester: orders for requests already past asking (resent or duplicated). */
  uint64_t duplicate_orders = 0;
  /** Requester: reads posted to owners (first posts and redrives), and the redrives. */
  uint64_t fetch_reads = 0;
  uint64_t fetch_redrives = 0;
  /** Requester: reports sent to managers ("fetched"), first sends and resends. */
  uint64_t reports_sent = 0;
  /** Manager: reports heard for requests already done (the first "done" was lost). */
  uint64_t duplicate_reports = 0;

  BlockServiceStats& operator+=(const BlockServiceStats& o);
};

class BlockServiceNode {
 public:
  /** A block arrived for request `request`: its bytes are at `vaddr` until this returns. */
  using ArrivedFn = std::function<void(uint64_t request, uint32_t block, uint64_t vaddr)>;
  /** A request was abandoned (max_tries sends, no "done"). */
  using AbandonedFn = std::function<void(uint64_t request, uint32_t block)>;

  /**
   * Maps and registers this node's owned blocks and its landing slots, and takes its rCxts.
   * The owned blocks' memory is the caller's to fill (owned_vaddr). Call Start once every
   * node is created.
   */
  static Result<std::unique_ptr<BlockServiceNode>> Create(uint32_t node,
                                                          const BlockServiceConfig& config,
                                                          hal::TaskHost& host, hal::Port& port);
  ~BlockServiceNode();
  BlockServiceNode(const BlockServiceNode&) = delete;
  BlockServiceNode& operator=(const BlockServiceNode&) = delete;

  /** What this node publishes. */
  const BlockDirectoryEntry& entry() const { return entry_; }
  /** Where owned block `block` lies in this node's memory (it must be one of its own). */
  uint64_t owned_vaddr(uint32_t block) const;
  /** Every node's entry, indexed by node; starts receiving. */
  void Start(std::vector<BlockDirectoryEntry> directory, ArrivedFn arrived, AbandonedFn abandoned);
  /** Asks for `block` (neither owned nor managed here); ids are the caller's, unique. */
  void Request(uint64_t request, uint32_t block);
  /** Requests not yet arrived nor abandoned. */
  uint64_t open_requests() const { return open_; }
  const BlockServiceStats& stats() const { return stats_; }
  /** The service's packet layout (block_service.cc). */
  struct Message;

 private:
  BlockServiceNode(uint32_t node, const BlockServiceConfig& config, hal::TaskHost& host,
                   hal::Port& port);
  /** Where a request is, as its requester sees it (kFetchOrder goes through all three;
   *  kThirdParty stays asking until "done"). */
  enum class Phase : uint8_t { kAsking, kFetching, kReporting };
  /** A request as its requester tracks it. */
  struct Outgoing {
    uint32_t block = 0;
    uint32_t manager = 0;
    uint32_t slot = 0;
    /** Packets sent in the current phase (requests, then reports), reads posted. */
    uint32_t sends = 0;
    uint32_t reads = 0;
    Phase phase = Phase::kAsking;
    /** kThirdParty: the block landed and was delivered; the slot waits for "done". */
    bool landed = false;
    /** kFetchOrder: what the order said (the owner's source rCxt and block PVO, the first
     *  of the tids set aside for this request's reads). */
    uint32_t source_rcxt = 0;
    uint64_t source_pvo = 0;
    uint32_t first_tid = 0;
  };
  /** A request as its manager tracks it. */
  struct Managed {
    bool done = false;
    /** Given up after max_tries posts (a copy of the request is then ignored). */
    bool abandoned = false;
    /** kFetchOrder: an order was sent (a copy of the request gets it again). */
    bool ordered = false;
    uint32_t block = 0;
    uint32_t requester = 0;
    uint32_t slot = 0;
    uint64_t landing_pvo = 0;
    uint32_t landing_rcxt = 0;
    /** Index into the owner's source rCxts set aside for this manager; -1: none yet. */
    int32_t source = -1;
    /** The manager's rCxts the posts take turns on, and how many are taken. */
    std::array<uint32_t, kRcxtsPerRead> local{};
    uint32_t locals = 0;
    /** The tids of the first and of the latest post (this manager's tids rise). */
    uint32_t first_tid = 0;
    uint32_t tid = 0;
    uint32_t posts = 0;
  };
  using ManagedKey = std::pair<uint32_t, uint64_t>;  // (requester, request)

  void Receive(const abi::RecvFrameHeader& h, const uint8_t* payload);
  // Requester.
  void Issue(uint32_t manager);
  /** Gives up request `request` (counted, reported). */
  void Abandon(uint64_t request, uint32_t block);
  void SendRequest(uint64_t request);
  void OnDone(uint32_t manager, uint64_t request);
  /** kThirdParty: the requester's adapter says a read tagged `request_word` landed in `slot`. */
  void OnLanded(uint32_t slot, uint32_t request_word);
  /** The request holding landing slot `slot` (outgoing_.end() if the slot is free). */
  std::map<uint64_t, Outgoing>::iterator HolderOf(uint32_t slot);
  /** Hands the block in the request's slot over (counted). */
  void Deliver(uint64_t request, const Outgoing& o);
  /** Resends the packet of the request's phase after Wait(sends) unless it moved on. */
  void ResendLater(uint64_t request);
  // Requester, kFetchOrder (block_service_fetch.cc).
  void OnOrder(uint32_t manager, const Message& m);
  void PostFetch(uint64_t request);
  void OnFetchCompletion(uint32_t slot, uint32_t tid);
  void SendReport(uint64_t request);
  // Manager.
  void OnRequest(uint32_t requester, const Message& m);
  void StartRead(const ManagedKey& key);
  void PostRead(const ManagedKey& key);
  void OnCompletion(uint32_t rcxt, uint32_t tid, uint32_t length);
  /** A free rCxt of this manager's, now serving `key`. */
  uint32_t TakeLocalRcxt(const ManagedKey& key);
  /** A read is done or given up: its rCxts and the owner's source rCxt go back to work. */
  void FinishRead(Managed& r);
  void SendDone(const ManagedKey& key);
  // Manager, kFetchOrder (block_service_fetch.cc).
  void SendOrder(const ManagedKey& key);
  void OnReport(uint32_t requester, uint64_t request);
  /** Sends `m` (kind, request and the rest filled by the caller) to node `to`. */
  void SendMessage(uint32_t to, Message& m);
  /**
   * How long to wait after try `tries` (1 = the first) before the next: the timeout, doubled
   * for each try before, as kBlockBackoff allows. A timeout shorter than a transfer
   * takes would otherwise redrive forever: each redrive arms the manager's rCxt with a tid
   * the transfer still in flight does not carry, so its completion is stale on arrival.
   */
  uint64_t Wait(uint32_t tries) const { return kBlockBackoff.Wait(config_.timeout_ps, tries - 1); }

  uint32_t node_;
  BlockServiceConfig config_;
  hal::TaskHost& host_;
  hal::Port& port_;
  /** Timers that do nothing once this node is gone. */
  hal::TaskTimers timers_{host_};
  BlockDirectoryEntry entry_;
  std::vector<BlockDirectoryEntry> directory_;
  ArrivedFn arrived_;
  AbandonedFn abandoned_;
  BlockServiceStats stats_;
  /** Per block: its position among its owner's blocks. */
  std::vector<uint32_t> ordinal_;
  uint64_t owned_vaddr_ = 0;
  // Requester: landing slots [manager * slots + i] (memory and rCxt), who holds each.
  uint64_t landing_vaddr_ = 0;
  uint64_t landing_pvo_ = 0;
  std::vector<uint32_t> landing_rcxts_;
  /** kFetchOrder: landing rCxt -> slot (completions of the requester's reads name it). */
  std::map<uint32_t, uint32_t> slot_of_rcxt_;
  std::vector<bool> slot_busy_;
  /** Per slot: the request holding it (while busy). */
  std::vector<uint64_t> slot_request_;
  std::vector<std::deque<uint64_t>> waiting_;  // per manager: requests for a free slot
  std::map<uint64_t, Outgoing> outgoing_;
  std::map<uint64_t, uint32_t> queued_blocks_;  // requests waiting for a slot: their blocks
  uint64_t open_ = 0;
  // Manager.
  std::map<ManagedKey, Managed> managed_;
  std::vector<std::vector<bool>> source_busy_;     // [owner][i]
  std::vector<std::deque<ManagedKey>> for_owner_;  // reads waiting for a source rCxt
  std::vector<uint32_t> free_local_rcxts_;
  /** Every rCxt this manager has posted reads with. */
  std::set<uint32_t> local_rcxts_;
  std::map<uint32_t, ManagedKey> by_local_rcxt_;
  uint32_t next_tid_ = 0;
};

}  // namespace nicsim::ulp
