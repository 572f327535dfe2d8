// SPDX-License-Identifier: Apache-2.0
// Multicast groups over broadcast RDMA (reference 002): each member keeps kMcastSlots landing
// slots, each an rCxt reserved for the group and an area of task memory, at the same rCxt
// index and PVO on every member that could take them. A root copies a message into its source
// area and posts one RDMA write to the broadcast adapter id: the switch replicates the packets,
// the adapters where the slot's rCxt is held land them, others drop them. Each member that
// receives the target-side completion copies the message out and acknowledges it to the root
// by one unicast packet; the root re-sends by unicast RDMA write, with a newer tid, to each
// member whose acknowledgement has not come by a timeout (selective retry). Members the
// broadcast cannot reach (another window number, the root's own node, a slot at another index
// or PVO) get unicast writes from the start.
//
// A chained group (Open with a tree radix) sends no broadcast: the root writes a message to
// its children in a tree of the members (numbered from the root), and every member's adapter
// forwards it to the member's own children as it lands. Each member arms its landing slot's
// rCxt with a conditional queue of its adapter (SlotType::kRcxtArm) and parks one write per
// child on that queue, so the landing fires them without the member's host. Acknowledgements
// and selective retry are the same, except that the root re-sends only to the missing
// members whose parent is not missing too (a retry that lands on a member fires its parked
// forwards to the rest of its subtree), and that a member waiting long for a message repeats
// its acknowledgement of the slot's message before (the arming made its retries stale).
//
// Message `epoch` of a group uses slot epoch % kMcastSlots, with tids epoch * kMcastAttempts +
// attempt, so a root has up to kMcastSlots messages in flight and a late copy of an older
// message never completes a newer one.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "base/status.h"
#include "hal/task_host.h"
#include "ulp/host_copy_time.h"
#include "ulp/transport/source_rcxts.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/** Landing slots per member: a root's messages in flight per group. */
inline constexpr uint32_t kMcastSlots = 4;
/** Sends of one message to one member (the broadcast, then unicast retries) at most. */
inline constexpr uint32_t kMcastAttempts = 256;

/** Where one member's landing slots are: what the members exchange when a group forms. */
struct McastAddress {
  /** The slots' rCxts. */
  std::array<uint32_t, kMcastSlots> rcxt{};
  /** PVO of slot 0; slot s lies slot_bytes * s after it. */
  uint64_t pvo = 0;
};

class RdmaMulticast {
 public:
  explicit RdmaMulticast(TransportContext& ctx);
  ~RdmaMulticast();
  RdmaMulticast(const RdmaMulticast&) = delete;
  RdmaMulticast& operator=(const RdmaMulticast&) = delete;

  /**
   * Maps and registers this task's slots of group `id` (slot_bytes each) and takes their
   * rCxts. `first`: the address of the group's first member, whose rCxt indices and PVO this
   * member takes if it can (null for the first member itself). Collective: every member
   * opens the group, then every member is told every address (SetMembers). `tree_radix` > 0:
   * a chained group, messages go down a tree of that many children per member (the member
   * takes a conditional queue per slot and a source rCxt per slot and child; error if the
   * adapter has no queues left).
   */
  Result<McastAddress> Open(uint32_t id, uint64_t slot_bytes, const McastAddress* first,
                            uint32_t tree_radix = 0);
  /** The group's members (tasks, this one included) and their addresses, in the same order. */
  void SetMembers(uint32_t id, std::vector<uint32_t> tasks, std::vector<McastAddress> addresses);
  /** True once group `id` is open on this task. */
  bool IsOpen(uint32_t id) const { return groups_.count(id) != 0; }
  /** True when message `epoch`'s slot is free at this root: the message kMcastSlots before it
   *  (if this task sent it) has been acknowledged by every member. */
  bool SlotFree(uint32_t id, uint64_t epoch) const {
    for (const auto& [sent, flight] : groups_.at(id).flights) {
      if (Slot(sent) == Slot(epoch)) return false;
    }
    return true;
  }
  /** No message of any group waits for acknowledgements or to land. */
  bool Idle() const;
  /** Bytes one message of group `id` carries at most. */
  uint64_t slot_bytes(uint32_t id) const { return groups_.at(id).slot_bytes; }

  /**
   * Root: sends `len` bytes (at most slot_bytes) as message `epoch` to every other member;
   * `on_done` runs once each has acknowledged it. Its slot must be free (SlotFree): the
   * message kMcastSlots before it on this root has completed. An empty message (a signal) is not
   * acknowledged and `on_done` runs at once: a member that misses it asks for it again.
   */
  void Send(uint32_t id, uint64_t epoch, const uint8_t* data, uint64_t len,
            std::function<void()> on_done);
  /** Member: copies message `epoch` (`len` bytes, from task `root`) to `out` once it has
   *  landed, acknowledges it (a signal: asks `root` for it when it is late), then runs
   *  `on_done`. */
  void Receive(uint32_t id, uint64_t epoch, uint32_t root, uint8_t* out, uint64_t len,
               std::function<void()> on_done);

  /** Forgets every receive waiting: its buffer is gone (the job was abandoned). */
  void AbandonReceives();
  /** Told why, when a message or a signal is given up on (each counted in mcast_failed):
   *  what waited on it then waits for ever, and the job stalls. */
  using GaveUpFn = std::function<void(const std::string& why)>;
  void OnGaveUp(GaveUpFn fn) { on_gave_up_ = std::move(fn); }
  /** An RDMA completion: true if it was a group slot's (and handled). */
  bool OnCompletion(const abi::RecvFrameHeader& frame, const abi::CompletionRecord& c);
  /** A member's acknowledgement (Kind::kMcastAck). */
  void OnAck(const Header& h);
  /** A member asks for a signal it has not received (Kind::kMcastNack). */
  void OnNack(const Header& h);
  /** Member: the root asks whether a message came (kMcastQuery); acknowledges it if it has. */
  void OnQuery(const Header& h);
  /** Member: the root has not sent the signal this member asked for yet (kMcastNotYet). */
  void OnNotYet(const Header& h);

 private:
  struct Expect {
    uint64_t epoch;
    uint32_t root;
    uint8_t* out;
    uint64_t len;
    std::function<void()> on_done;
    /** Times its wait timer fired (a signal: times this member asked the root for it). */
    uint32_t waits;
    /** Of those, asked since the root last said it has not sent the signal yet
     *  (kMcastNotYet). */
    uint32_t unanswered = 0;
  };
  /** Most questions a member asks for one signal, answered or not (at most one per rto_max,
   *  2 ms by default, once the wait has doubled up to it: about half a minute). */
  static constexpr uint32_t kMostSignalQuestions = 16 * 1024;
  /** Signals a root remembers, to answer members that ask for one again. */
  static constexpr size_t kKeptSignals = 64;
  /** The port a group's signals and writes use. */
  static constexpr uint32_t kPort = 0;
  struct Flight {
    uint64_t len = 0;
    std::set<uint32_t> missing;
    uint32_t attempt = 0;
    std::function<void()> on_done;
  };
  struct Group {
    uint32_t id = 0;
    uint64_t slot_bytes = 0;
    uint64_t landing = 0;
    uint64_t source = 0;
    std::vector<driver::Registration> registrations;
    McastAddress self;
    std::vector<uint32_t> tasks;
    std::vector<McastAddress> addresses;
    /** Receive side, per slot: the tid of its last completion, the epoch last copied out and
     *  the receive waiting for it. */
    std::array<uint32_t, kMcastSlots> landed_tid{};
    std::array<std::optional<uint64_t>, kMcastSlots> consumed{};
    /** The length and root of each slot's message last copied out. */
    std::array<uint64_t, kMcastSlots> consumed_len{};
    std::array<uint32_t, kMcastSlots> consumed_root{};
    std::array<std::optional<Expect>, kMcastSlots> expects;
    /** The task that sent each slot's last landed message (its completion says). */
    std::array<uint32_t, kMcastSlots> landed_root{};
    /** Send side: messages waiting for acknowledgements, by epoch, and the last signals. */
    std::map<uint64_t, Flight> flights;
    std::set<uint64_t> signals;
    /** Source rCxts of this task's writes (reused once idle). */
    SourceRcxts sources;
    /** Chained groups: children per member (0: broadcast), each slot's conditional queue and
     *  the source rCxts of the forwards (slot * radix + child). */
    uint32_t radix = 0;
    std::vector<uint32_t> queues;
    std::vector<uint32_t> forwarders;
  };

  static uint32_t Tid(uint64_t epoch, uint32_t attempt) {
    return static_cast<uint32_t>(epoch * kMcastAttempts + attempt);
  }
  static uint32_t Slot(uint64_t epoch) { return static_cast<uint32_t>(epoch % kMcastSlots); }
  /** Posts message `epoch`'s writes (its source slot is written) and arms its timer. */
  void Start(uint32_t id, uint64_t epoch);
  /** Posts the broadcast write and the unicast writes of message `epoch`; adds the members
   *  it goes to to `missing` (if given). */
  void PostAll(Group& g, uint64_t epoch, uint64_t len, std::set<uint32_t>* missing);
  /** A member's timer while it waits for message `epoch`: a signal is asked for again, and
   *  a chained group's member repeats its acknowledgement of the slot's message before. */
  void ArmWait(uint32_t id, uint64_t epoch, uint32_t attempt);
  /** Posts one write of message `epoch`'s slot to `dest` (a member, or the broadcast id). */
  void PostWrite(Group& g, uint64_t epoch, uint64_t len, hal::Peer dest, uint32_t remote_rcxt,
                 uint64_t remote_pvo, uint32_t attempt);
  /** Chained groups (rdma_multicast_tree.cc). Takes the slots' queues and forward rCxts. */
  Status OpenChain(Group& g, uint32_t radix);
  /** The members (indices into tasks) `member`'s adapter forwards to, for a message of `root`. */
  std::vector<size_t> Children(const Group& g, size_t root, size_t member) const;
  /** `member`'s parent in the tree of this task's messages (this task is the root). */
  size_t Parent(const Group& g, size_t member) const;
  /** Levels of the tree below the root. */
  uint32_t Depth(const Group& g) const;
  /** Root: writes message `epoch` to the root's children. */
  void PostToChildren(Group& g, uint64_t epoch, uint64_t len);
  /** Member: arms `epoch`'s landing slot and parks its forwards to this member's children. */
  void ParkForwards(Group& g, uint64_t epoch, uint32_t root, uint64_t len);
  /** Sends `task` an unacknowledged header of `kind` about message `epoch` of `group`. */
  void SendNotice(uint32_t task, Kind kind, uint64_t epoch, uint32_t group, uint32_t offset = 0);
  size_t MemberOf(const Group& g, uint32_t task) const;

  /** An idle source rCxt of the group for a write with `tid` (a new one if all are busy). */
  uint32_t SourceRcxt(Group& g, uint32_t tid);
  /** True if `member` takes the broadcast of slot `slot` from this task. */
  bool Reachable(const Group& g, size_t member, uint32_t slot) const;
  /** Completes a signal receive whose slot a later message reached first. */
  void EndOvertakenSignal(Group& g, uint32_t slot);
  /** Copies the landed message out if it is intact, acknowledges it, completes the receive. */
  void Consume(Group& g, uint32_t slot);
  void SendAck(const Group& g, uint32_t root, uint64_t epoch);
  /** Counts a copy of `bytes` by this task's CPU; runs `fn` when it is done (copies cost
   *  host.copy_bandwidth time, one after another). */
  void AfterCopy(uint64_t bytes, std::function<void()> fn);
  void ArmTimer(uint32_t id, uint64_t epoch, uint32_t attempt);
  void OnTimeout(uint32_t id, uint64_t epoch, uint32_t attempt);

  TransportContext& ctx_;
  HostCopyTime copies_;
  std::map<uint32_t, Group> groups_;
  /** When the writes this task has posted (first sends and retries, every group) will have
   *  left its adapter, at the RDMA timeout's pace: a message's wait starts after them. */
  uint64_t writes_done_ps_ = 0;
  /** Slot rCxt reference -> (group, slot). */
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> slot_of_;
  GaveUpFn on_gave_up_;
};

}  // namespace nicsim::ulp
