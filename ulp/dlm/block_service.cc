// SPDX-License-Identifier: Apache-2.0
// The block service's three roles on one node: owner (memory and source rCxts, no software on
// the data path), requester (landing slots, request and resend, "done" checks) and manager
// (third-party reads, redrives with newer tids, "done" answers).
#include "ulp/dlm/block_service.h"

#include <algorithm>
#include <cstring>

#include "abi/packet.h"
#include "abi/rdma.h"
#include "base/check.h"
#include "ulp/dlm/block_service_message.h"

namespace nicsim::ulp {

BlockServiceStats& BlockServiceStats::operator+=(const BlockServiceStats& o) {
  requests += o.requests;
  request_packets += o.request_packets;
  request_resends += o.request_resends;
  blocks_received += o.blocks_received;
  duplicate_dones += o.duplicate_dones;
  requests_abandoned += o.requests_abandoned;
  requests_managed += o.requests_managed;
  duplicate_requests += o.duplicate_requests;
  third_party_reads += o.third_party_reads;
  redrives += o.redrives;
  completions += o.completions;
  early_completions += o.early_completions;
  late_completions += o.late_completions;
  bytes_moved += o.bytes_moved;
  dones_sent += o.dones_sent;
  reads_abandoned += o.reads_abandoned;
  stray_completions += o.stray_completions;
  cancel_notices += o.cancel_notices;
  landed_before_done += o.landed_before_done;
  late_landings += o.late_landings;
  orders_sent += o.orders_sent;
  duplicate_orders += o.duplicate_orders;
  fetch_reads += o.fetch_reads;
  fetch_redrives += o.fetch_redrives;
  reports_sent += o.reports_sent;
  duplicate_reports += o.duplicate_reports;
  return *this;
}

BlockServiceNode::BlockServiceNode(uint32_t node, const BlockServiceConfig& config,
                                   hal::TaskHost& host, hal::Port& port)
    : node_(node), config_(config), host_(host), port_(port) {}

BlockServiceNode::~BlockServiceNode() { port_.OnReceive(nullptr); }

Result<std::unique_ptr<BlockServiceNode>> BlockServiceNode::Create(uint32_t node,
                                                                   const BlockServiceConfig& config,
                                                                   hal::TaskHost& host,
                                                                   hal::Port& port) {
  if (config.nodes < 3 || node >= config.nodes) {
    return Status::Error("block service: needs 3 nodes or more (requester, manager, owner)");
  }
  std::unique_ptr<BlockServiceNode> n(new BlockServiceNode(node, config, host, port));
  const uint64_t block = config.block_bytes;
  std::vector<uint32_t> owned(config.nodes, 0);
  n->ordinal_.resize(config.blocks);
  for (uint32_t b = 0; b < config.blocks; ++b) {
    n->ordinal_[b] = owned[BlockOwner(b, config.nodes)]++;
  }
  n->entry_.peer = port.self();
  // Owned blocks, one after another, registered once.
  const uint64_t owned_bytes = std::max<uint64_t>(1, owned[node] * block);
  Result<uint64_t> vaddr = host.Map(owned_bytes);
  if (!vaddr.ok()) return Status::Error("block service: owned blocks: " + vaddr.status().message());
  Result<driver::Registration> reg = host.Register(*vaddr, owned_bytes);
  if (!reg.ok()) return Status::Error("block service: owned blocks: " + reg.status().message());
  n->owned_vaddr_ = *vaddr;
  n->entry_.blocks_pvo = reg->pvo;
  // Landing slots, `slots` per manager, and the source rCxts owners set aside per manager.
  const uint32_t per_node = config.nodes * config.slots;
  const uint64_t landing_bytes = uint64_t{per_node} * block;
  vaddr = host.Map(landing_bytes);
  if (!vaddr.ok()) {
    return Status::Error("block service: landing slots: " + vaddr.status().message());
  }
  reg = host.Register(*vaddr, landing_bytes);
  if (!reg.ok()) return Status::Error("block service: landing slots: " + reg.status().message());
  n->landing_vaddr_ = *vaddr;
  n->landing_pvo_ = reg->pvo;
  for (uint32_t i = 0; i < per_node; ++i) {
    Result<uint32_t> landing = port.AcquireRcxt();
    Result<uint32_t> source = port.AcquireRcxt();
    if (!landing.ok() || !source.ok()) return Status::Error("block service: no free rCxt");
    n->slot_of_rcxt_[*landing] = i;
    n->landing_rcxts_.push_back(*landing);
    n->entry_.source_rcxts.push_back(*source);
  }
  n->slot_busy_.assign(per_node, false);
  n->slot_request_.assign(per_node, 0);
  n->waiting_.resize(config.nodes);
  n->source_busy_.assign(config.nodes, std::vector<bool>(config.slots, false));
  n->for_owner_.resize(config.nodes);
  return n;
}

uint64_t BlockServiceNode::owned_vaddr(uint32_t block) const {
  NICSIM_CHECK(BlockOwner(block, config_.nodes) == node_, "block %u is not owned by node %u", block,
               node_);
  return owned_vaddr_ + uint64_t{ordinal_[block]} * config_.block_bytes;
}

void BlockServiceNode::Start(std::vector<BlockDirectoryEntry> directory, ArrivedFn arrived,
                             AbandonedFn abandoned) {
  NICSIM_CHECK(directory.size() == config_.nodes, "directory of %zu nodes, service of %u",
               directory.size(), config_.nodes);
  directory_ = std::move(directory);
  arrived_ = std::move(arrived);
  abandoned_ = std::move(abandoned);
  port_.OnReceive(
      [this](const abi::RecvFrameHeader& h, const uint8_t* payload) { Receive(h, payload); });
}

void BlockServiceNode::Receive(const abi::RecvFrameHeader& h, const uint8_t* payload) {
  if (h.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
    abi::CompletionRecord c{};
    std::memcpy(&c, payload, std::min<size_t>(sizeof(c), h.len_bytes));
    if (c.status == static_cast<uint32_t>(abi::RdmaStatus::kCancelled)) {
      ++stats_.cancel_notices;  // the redrive that cancelled it is already posted
      return;
    }
    if (c.status != static_cast<uint32_t>(abi::RdmaStatus::kOk)) {
      ++stats_.stray_completions;
      return;
    }
    auto landing = slot_of_rcxt_.find(c.rcxt);
    if (landing != slot_of_rcxt_.end() && config_.transfer == BlockTransfer::kThirdParty) {
      OnLanded(landing->second, h.ulp_word);
    } else if (landing != slot_of_rcxt_.end()) {
      OnFetchCompletion(landing->second, c.tid);
    } else {
      OnCompletion(c.rcxt, c.tid, c.length);
    }
    return;
  }
  if (h.type != static_cast<uint8_t>(abi::PacketType::kFifo) || h.len_bytes != sizeof(Message)) {
    return;
  }
  Message m;
  std::memcpy(&m, payload, sizeof(m));
  if (m.node >= config_.nodes) return;
  if (m.kind == Message::kRequest) OnRequest(m.node, m);
  if (m.kind == Message::kDone) OnDone(m.node, m.request);
  if (m.kind == Message::kOrder) OnOrder(m.node, m);
  if (m.kind == Message::kReport) OnReport(m.node, m.request);
}

// ---------------------------------------------------------------------------------------
// Requester.

void BlockServiceNode::Request(uint64_t request, uint32_t block) {
  const uint32_t manager = BlockManager(block, config_.nodes);
  NICSIM_CHECK(manager != node_ && BlockOwner(block, config_.nodes) != node_,
               "node %u asks for block %u it manages or owns", node_, block);
  ++stats_.requests;
  ++open_;
  waiting_[manager].push_back(request);
  queued_blocks_[request] = block;
  Issue(manager);
}

void BlockServiceNode::Abandon(uint64_t request, uint32_t block) {
  ++stats_.requests_abandoned;
  --open_;
  if (abandoned_) abandoned_(request, block);
}

void BlockServiceNode::Issue(uint32_t manager) {
  while (!waiting_[manager].empty()) {
    uint32_t slot = manager * config_.slots;
    const uint32_t end = slot + config_.slots;
    while (slot < end && slot_busy_[slot]) ++slot;
    if (slot == end) {
      if (std::none_of(outgoing_.begin(), outgoing_.end(),
                       [&](const auto& o) { return o.second.manager == manager; })) {
        // Every slot for this manager was given up with its request: nothing can be asked
        // of it any more.
        for (uint64_t request : waiting_[manager]) {
          const uint32_t block = queued_blocks_[request];
          queued_blocks_.erase(request);
          Abandon(request, block);
        }
        waiting_[manager].clear();
      }
      return;
    }
    const uint64_t request = waiting_[manager].front();
    waiting_[manager].pop_front();
    slot_busy_[slot] = true;
    slot_request_[slot] = request;
    Outgoing& o = outgoing_[request];
    o.block = queued_blocks_[request];
    o.manager = manager;
    o.slot = slot;
    queued_blocks_.erase(request);
    SendRequest(request);
  }
}

void BlockServiceNode::SendRequest(uint64_t request) {
  auto it = outgoing_.find(request);
  if (it == outgoing_.end()) return;  // its block arrived
  Outgoing& o = it->second;
  if (o.sends == config_.max_tries) {
    // Given up (unless the block came, and only "done" did not). The slot stays taken for
    // good: a late transfer may still land in it.
    const uint32_t block = o.block;
    const uint32_t manager = o.manager;
    const bool landed = o.landed;
    outgoing_.erase(it);
    if (!landed) Abandon(request, block);
    Issue(manager);
    return;
  }
  if (o.sends > 0) ++stats_.request_resends;
  ++o.sends;
  ++stats_.request_packets;
  Message m{};
  m.kind = Message::kRequest;
  m.request = request;
  m.block = o.block;
  m.slot = o.slot;
  m.pvo = landing_pvo_ + uint64_t{o.slot} * config_.block_bytes;
  m.rcxt = landing_rcxts_[o.slot];
  SendMessage(o.manager, m);
  ResendLater(request);
}

void BlockServiceNode::ResendLater(uint64_t request) {
  // Sent again unless the request moves on first (the manager ignores a copy of a request it
  // is still serving, and answers one it has finished). Twice the manager's redrive wait: a
  // manager that heard the request redrives its read before the requester asks again.
  const Outgoing& o = outgoing_.at(request);
  const uint32_t sends = o.sends;
  const Phase phase = o.phase;
  timers_.After(2 * Wait(sends), [this, request, sends, phase] {
    auto again = outgoing_.find(request);
    if (again == outgoing_.end() || again->second.sends != sends || again->second.phase != phase) {
      return;
    }
    if (phase == Phase::kAsking) SendRequest(request);
    if (phase == Phase::kReporting) SendReport(request);
  });
}

void BlockServiceNode::SendMessage(uint32_t to, Message& m) {
  m.node = node_;
  port_.Send(directory_[to].peer, reinterpret_cast<const uint8_t*>(&m), sizeof(m), 0);
}

void BlockServiceNode::OnDone(uint32_t manager, uint64_t request) {
  auto it = outgoing_.find(request);
  if (it == outgoing_.end() || it->second.manager != manager) {
    ++stats_.duplicate_dones;
    return;
  }
  const Outgoing o = it->second;
  if (o.phase != Phase::kAsking) {
    // kFetchOrder: the block came at the read's completion; this ends the report.
    if (o.phase == Phase::kFetching) ++stats_.duplicate_dones;  // no report was sent yet
    if (o.phase == Phase::kReporting) outgoing_.erase(it);
    return;
  }
  outgoing_.erase(it);
  // The manager heard the completion, which the requester's adapter sent once every byte was
  // coherent here: the block is in the slot (if the adapter's own completion record did not
  // say so already), and no read of this request's can land in the slot any more.
  if (!o.landed) Deliver(request, o);
  slot_busy_[o.slot] = false;
  Issue(o.manager);
}

void BlockServiceNode::OnLanded(uint32_t slot, uint32_t request_word) {
  // The manager tags its reads with the request; a read of an earlier request in this slot
  // (a redrive that lost the race with its completion) lands with another tag.
  auto it = HolderOf(slot);
  if (it == outgoing_.end() || static_cast<uint32_t>(it->first) != request_word ||
      it->second.landed) {
    ++stats_.late_landings;
    return;
  }
  ++stats_.landed_before_done;
  it->second.landed = true;
  Deliver(it->first, it->second);
}

std::map<uint64_t, BlockServiceNode::Outgoing>::iterator BlockServiceNode::HolderOf(uint32_t slot) {
  return slot_busy_[slot] ? outgoing_.find(slot_request_[slot]) : outgoing_.end();
}

void BlockServiceNode::Deliver(uint64_t request, const Outgoing& o) {
  ++stats_.blocks_received;
  --open_;
  if (arrived_) {
    arrived_(request, o.block, landing_vaddr_ + uint64_t{o.slot} * config_.block_bytes);
  }
}

// ---------------------------------------------------------------------------------------
// Manager.

void BlockServiceNode::OnRequest(uint32_t requester, const Message& m) {
  const ManagedKey key{requester, m.request};
  auto it = managed_.find(key);
  if (it != managed_.end()) {
    ++stats_.duplicate_requests;
    if (it->second.done) SendDone(key);                          // the first "done" was lost
    if (!it->second.done && it->second.ordered) SendOrder(key);  // the order was lost
    return;
  }
  if (m.block >= config_.blocks || BlockManager(m.block, config_.nodes) != node_ ||
      m.slot >= config_.nodes * config_.slots) {
    return;
  }
  ++stats_.requests_managed;
  Managed& r = managed_[key];
  r.block = m.block;
  r.requester = requester;
  r.slot = m.slot;
  r.landing_pvo = m.pvo;
  r.landing_rcxt = m.rcxt;
  for_owner_[BlockOwner(m.block, config_.nodes)].push_back(key);
  StartRead(key);
}

void BlockServiceNode::StartRead(const ManagedKey& key) {
  const uint32_t owner = BlockOwner(managed_.at(key).block, config_.nodes);
  std::deque<ManagedKey>& queue = for_owner_[owner];
  while (!queue.empty()) {
    std::vector<bool>& busy = source_busy_[owner];
    uint32_t i = 0;
    while (i < config_.slots && busy[i]) ++i;
    if (i == config_.slots) return;  // every source rCxt set aside at the owner is in use
    Managed& r = managed_.at(queue.front());
    const ManagedKey next = queue.front();
    queue.pop_front();
    busy[i] = true;
    r.source = static_cast<int32_t>(i);
    if (config_.transfer == BlockTransfer::kFetchOrder) {
      SendOrder(next);
    } else {
      PostRead(next);
    }
  }
}

uint32_t BlockServiceNode::TakeLocalRcxt(const ManagedKey& key) {
  if (free_local_rcxts_.empty()) {
    Result<uint32_t> rcxt = port_.AcquireRcxt();
    NICSIM_CHECK(rcxt.ok(), "block service: manager %u has no free rCxt", node_);
    free_local_rcxts_.push_back(*rcxt);
    local_rcxts_.insert(*rcxt);
  }
  const uint32_t rcxt = free_local_rcxts_.back();
  free_local_rcxts_.pop_back();
  by_local_rcxt_[rcxt] = key;
  return rcxt;
}

void BlockServiceNode::FinishRead(Managed& r) {
  for (uint32_t i = 0; i < r.locals; ++i) {
    by_local_rcxt_.erase(r.local[i]);
    free_local_rcxts_.push_back(r.local[i]);
  }
  r.locals = 0;
  const uint32_t owner = BlockOwner(r.block, config_.nodes);
  source_busy_[owner][static_cast<uint32_t>(r.source)] = false;
  if (!for_owner_[owner].empty()) StartRead(for_owner_[owner].front());
}

void BlockServiceNode::PostRead(const ManagedKey& key) {
  Managed& r = managed_.at(key);
  const uint32_t owner = BlockOwner(r.block, config_.nodes);
  if (r.posts == config_.max_tries) {
    // Given up; the requester gives up too once its own tries run out (and never uses that
    // landing slot again). This manager's rCxts go back to work: its tids keep rising, so a
    // late copy of this read is stale wherever it arrives.
    ++stats_.reads_abandoned;
    r.abandoned = true;
    FinishRead(r);
    return;
  }
  // Posts take turns over kRcxtsPerRead rCxts of the manager's: a redrive arms another one,
  // so a transfer still in flight (its redrive found the owner's source rCxt busy and was
  // dropped) can still complete on the rCxt it was posted with.
  const uint32_t turn = r.posts % kRcxtsPerRead;
  if (turn == r.locals) r.local[r.locals++] = TakeLocalRcxt(key);
  if (r.posts > 0) ++stats_.redrives;
  ++r.posts;
  ++stats_.third_party_reads;
  // One counter for every rCxt this manager's reads touch: each of them sees rising tids, so
  // a late packet of an earlier attempt is stale everywhere.
  r.tid = ++next_tid_;
  if (r.posts == 1) r.first_tid = r.tid;
  abi::RdmaRequest q{};
  q.local_rcxt = r.local[turn];
  q.remote_rcxt = directory_[owner].source_rcxts[node_ * config_.slots + r.source];
  q.tid = r.tid;
  q.length = config_.block_bytes;
  q.remote_pvo = directory_[owner].blocks_pvo + uint64_t{ordinal_[r.block]} * config_.block_bytes;
  // The owner's software is not involved at all. The manager hears of the end (and frees the
  // owner's source rCxt); so does the requester, from its own adapter, as soon as the block
  // is there, but it keeps the slot until the manager's "done" (a redrive may still land).
  q.flags = abi::kReqNotifyInitiator | abi::kReqNotifyTarget;
  q.third_adapter = directory_[r.requester].peer.adapter;
  q.third_window = directory_[r.requester].peer.window;
  q.third_rcxt = r.landing_rcxt;
  q.third_pvo = r.landing_pvo;
  // The tag the requester's completion record carries: which request landed (ids are unique
  // in their low 32 bits among a requester's open requests).
  port_.Post(abi::SlotType::kThirdPartyRead, directory_[owner].peer, q,
             static_cast<uint32_t>(key.second));
  const uint32_t tid = r.tid;
  timers_.After(Wait(r.posts), [this, key, tid] {
    auto it = managed_.find(key);
    if (it != managed_.end() && !it->second.done && !it->second.abandoned &&
        it->second.tid == tid) {
      PostRead(key);
    }
  });
}

void BlockServiceNode::OnCompletion(uint32_t rcxt, uint32_t tid, uint32_t length) {
  auto at = by_local_rcxt_.find(rcxt);
  if (local_rcxts_.count(rcxt) == 0 || abi::TidBefore(next_tid_, tid)) {
    ++stats_.stray_completions;  // no read of this node's could have sent it
    return;
  }
  // The rCxt serves one request at a time, and every tid it was armed with for this request
  // lies in [first_tid, tid]: a completion of an earlier post is as good as one of the
  // latest (every post moves the same bytes to the same slot). A tid before that range is
  // a post completing after its request was done: it landed the same bytes again, into a
  // slot whose next request's tids are all newer.
  if (at == by_local_rcxt_.end() || abi::TidBefore(tid, managed_.at(at->second).first_tid) ||
      abi::TidBefore(managed_.at(at->second).tid, tid)) {
    ++stats_.late_completions;
    return;
  }
  const ManagedKey key = at->second;
  Managed& r = managed_.at(key);
  if (tid != r.tid) ++stats_.early_completions;
  r.done = true;
  ++stats_.completions;
  stats_.bytes_moved += length;
  SendDone(key);
  FinishRead(r);
}

void BlockServiceNode::SendDone(const ManagedKey& key) {
  const Managed& r = managed_.at(key);
  ++stats_.dones_sent;
  Message m{};
  m.kind = Message::kDone;
  m.request = key.second;
  m.block = r.block;
  m.slot = r.slot;
  SendMessage(r.requester, m);
}

}  // namespace nicsim::ulp
