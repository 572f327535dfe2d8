// SPDX-License-Identifier: Apache-2.0
// One-sided communication on one rank: the windows it exposes and the puts, gets and
// accumulates it starts on other ranks' windows. A put whose origin buffer and target window
// both lie in memory the adapter reaches (AllocMem, WinAllocate) moves by RDMA straight from
// one to the other: the transport announces the origin's bytes and the target's adapter pulls
// them into the window, no CPU copy on either side. A get is the same the other way: the
// target announces the window's bytes, the origin pulls them into its buffer. Otherwise the
// bytes travel as a message and a CPU copies them (counted). An accumulate always travels as
// a message and the target's CPU combines it into the window (counted), once: the transport
// delivers a message exactly once however the fabric loses, duplicates or reorders. A fetching
// accumulate (get-accumulate, fetch-and-op, compare-and-swap) has the target reply with the
// elements as they were before it updated them, in the same step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ulp/mpi/datatype.h"
#include "ulp/mpi/p2p_services.h"
#include "ulp/mpi/p2p_wire.h"
#include "ulp/mpi/request.h"

namespace nicsim::mpi {

/** A window: its agreed context names its traffic; `comm` holds its members. */
struct Win {
  uint32_t context = 0;
  Comm comm;
};

/** What arrives in a window's context (routed here by PointToPoint). */
class WindowTraffic {
 public:
  virtual ~WindowTraffic() = default;
  /** A message (a put or accumulate that travels as one, a get's request or reply). */
  virtual void OnMessage(int source_world, uint32_t context, std::vector<uint8_t> data) = 0;
  /** An announced transfer (an RDMA put, a get's reply) waiting to be pulled. */
  virtual void OnAnnounced(int source_world, uint32_t context, uint32_t tag, uint64_t total,
                           uint32_t seq) = 0;
  /** The bytes of announced transfer `seq` came (none: they landed in place); false if the
   *  transfer is not a window's. */
  virtual bool OnAccepted(int source_world, uint32_t seq, std::vector<uint8_t>& data) = 0;
};

class OneSided final : public WindowTraffic {
 public:
  explicit OneSided(P2pServices& s) : s_(s) {}

  /** Exposes `bytes` at `base` as window `context` (the members call it with one context);
   *  none (0 bytes): a dynamic window, whose memory is attached later. */
  void Expose(uint32_t context, uint8_t* base, size_t bytes);
  /** Adds `bytes` at `base` to window `context`, reached at displacements from `disp` (a
   *  dynamic window's: the address the program attached). */
  void Attach(uint32_t context, uint64_t disp, uint8_t* base, size_t bytes);
  /** Takes the memory attached at `disp` out of window `context`. */
  void Detach(uint32_t context, uint64_t disp);
  /** Exposes `bytes` of memory this object holds (zeroed) as window `context`; its address. */
  uint8_t* ExposeOwned(uint32_t context, size_t bytes);
  /** Window memory a rank exposes for direct reads: the region at displacements
   *  [disp, disp + bytes) starts at PVO `pvo` (0: none; it is read by message). */
  struct Published {
    uint64_t pvo = 0;
    uint64_t disp = 0;
    uint64_t bytes = 0;
  };
  /** What this rank exposes of window `context` for direct reads (the members exchange it as
   *  they make the window: Learn). */
  Published PublishedHere(uint32_t context) const;
  /** `target_world` exposes `p` of window `context`: gets of it go by RDMA read from now on. */
  void Learn(uint32_t context, int target_world, const Published& p);
  /** Forgets window `context` (nothing of it may be in flight). */
  void Forget(uint32_t context);

  /** Starts writing `count` elements of `type` at `buf` to `target_world`'s window at byte
   *  `disp`. */
  void Put(const void* buf, size_t count, const Datatype& type, int target_world, uint64_t disp,
           uint32_t window);
  /** Starts reading `count` elements of `type` into `buf` from the window at byte `disp`. */
  void Get(void* buf, size_t count, const Datatype& type, int target_world, uint64_t disp,
           uint32_t window);
  /** How an accumulate changes the target's elements. */
  enum class Update : uint8_t {
    kCombine,      // element op origin element
    kReplace,      // the origin's element
    kNoOp,         // unchanged (a fetching accumulate that only reads, atomically)
    kCompareSwap,  // the origin's element if the target's equals the compare element
  };
  /** Starts combining `count` elements of `type` at `buf` into the window at byte `disp` with
   *  `op` (`type`'s base elements), or replacing them (`update`). */
  void Accumulate(const void* buf, size_t count, const Datatype& type, Op op, int target_world,
                  uint64_t disp, uint32_t window, Update update = Update::kCombine);
  /**
   * An accumulate that also fetches: `result` (`count` elements of `type`) gets the target's
   * elements as they were before the update, once the operation completes (a fence).
   * `compare` (the same shape as `buf`) is read for kCompareSwap only.
   */
  void FetchAccumulate(const void* buf, const void* compare, void* result, size_t count,
                       const Datatype& type, Update update, Op op, int target_world, uint64_t disp,
                       uint32_t window);
  /** Where an operation's packed bytes lie in the target's window: (displacement, length)
   *  blocks, in the order the bytes fill them. */
  using Blocks = std::vector<std::pair<uint64_t, uint64_t>>;
  /** Put, Get and (Fetch)Accumulate of packed bytes over `blocks` of the window: one block
   *  is the operation above; several travel as one message whose blocks the target's CPU
   *  places or gathers. `result` (null: none) gets a fetching accumulate's old elements. */
  void PutBlocks(const uint8_t* packed, const Blocks& blocks, int target_world, uint32_t window);
  void GetBlocks(uint8_t* packed, const Blocks& blocks, int target_world, uint32_t window);
  void AccumulateBlocks(const uint8_t* packed, uint8_t* result, const Blocks& blocks, Base base,
                        Update update, Op op, int target_world, uint32_t window);
  /** Passive target: asks `target_world` for its lock on `window` (Granted says when). */
  void Lock(uint32_t window, int target_world, bool exclusive);
  bool Granted(uint32_t window, int target_world) const;
  /**
   * Ends (`release`) or flushes this rank's passive epoch at `target_world`: the target
   * answers (Answered) once it has applied the `issued` puts and accumulates this rank
   * started on it since the lock or the last flush, and on release lets the next waiter in.
   */
  void Unlock(uint32_t window, int target_world, uint64_t issued, bool release);
  bool Answered(uint32_t window, int target_world) const;
  /** Active target, generalised (post-start-complete-wait): exposes `window` to the origins,
   *  telling each. */
  void Post(uint32_t window, const std::vector<int>& origins_world);
  /** True once every target of `targets_world` has posted an exposure not yet started. */
  bool PostedBy(uint32_t window, const std::vector<int>& targets_world) const;
  /** Starts an access epoch to the targets (each PostedBy): takes their posts. */
  void Start(uint32_t window, const std::vector<int>& targets_world);
  /** Ends the access epoch: tells each target how many puts and accumulates it was sent
   *  (this rank's own operations must be complete first). */
  void Complete(uint32_t window);
  /** True once every origin of the last Post completed and its operations are applied (then
   *  the exposure ends). */
  bool CompletedBy(uint32_t window);
  /** Operations this rank started on `window` that have not completed here (a get until its
   *  bytes came, a put until its origin buffer is free). */
  uint64_t Outstanding(uint32_t window) const;
  /** Puts and accumulates this rank started on `window` at `target_world` since the last
   *  take: the target waits for that many to be applied before a fence ends. */
  uint64_t TakeIssued(uint32_t window, int target_world);
  /** Puts and accumulates applied to this rank's `window`, not yet consumed. */
  uint64_t Applied(uint32_t window) const;
  /** A fence saw `n` applied: they are consumed (and every origin's count with them). */
  void ConsumeApplied(uint32_t window, uint64_t n) {
    applied_[window] -= n;
    applied_by_.erase(window);
  }

  void OnMessage(int source_world, uint32_t context, std::vector<uint8_t> data) override;
  void OnAnnounced(int source_world, uint32_t context, uint32_t tag, uint64_t total,
                   uint32_t seq) override;
  bool OnAccepted(int source_world, uint32_t seq, std::vector<uint8_t>& data) override;

 private:
  /** Memory of a window, reached at displacements [disp, disp + bytes). */
  struct Region {
    uint64_t disp = 0;
    uint8_t* base = nullptr;
    size_t bytes = 0;
    /** Its task address when the adapter reaches it (0: it does not). */
    uint64_t task_vaddr = 0;
    /** Its PVO when origins may read it directly (Publish), else 0. */
    uint64_t pvo = 0;
  };
  /** A window's memory on this rank: one region, or those attached (by displacement). */
  struct Exposed {
    std::map<uint64_t, Region> regions;
  };
  /** Where an access to a window lands. */
  struct Place {
    uint8_t* at = nullptr;
    /** Its task address when the adapter reaches it (0: it does not). */
    uint64_t task_vaddr = 0;
  };

  /** A get waiting for its bytes. */
  struct PendingGet {
    uint32_t window = 0;
    void* buf = nullptr;
    size_t count = 0;
    Datatype type;
  };
  /** Where an accepted transfer lands: a put into this rank's window (`get` 0) or get `get`'s
   *  reply. */
  struct Landing {
    uint32_t window = 0;
    uint64_t disp = 0;
    uint64_t get = 0;
    /** A put outside its window: pulled and dropped. */
    bool drop = false;
  };
  /** Registers `region` for good (until Unpublish) and notes its PVO, when the adapter reaches
   *  it within one registration: origins may then read it directly (a window made with its
   *  memory; attached memory comes and goes, and is read by message). */
  void Publish(Region& region);
  void Unpublish(const Region& region);
  /** Starts get `id` (pending, `len` bytes at `disp`) as a direct RDMA read of the target's
   *  published memory; false if it cannot go that way now (then it goes by message: the
   *  target's memory is not published, or the transport's read channel to it is not open yet
   *  or has every pair busy). */
  bool ReadDirect(int target_world, uint32_t window, uint64_t disp, uint64_t len, uint64_t id);
  /** Asks `target_world` for `len` bytes of `window` at `disp` for get `id` by message. */
  void RequestGet(int target_world, uint32_t window, uint64_t disp, uint64_t len, uint64_t id);
  /** Where [disp, disp + len) of window `window` lies; `at` null (counted) if no region of
   *  it holds all of that. */
  Place Target(uint32_t window, uint64_t disp, uint64_t len);
  /** Counts an operation of `len` bytes in `counter` and, unless it moves none (false), starts
   *  it on `window`: outstanding here and, if it changes the target (`issues`), issued to
   *  `target_world`. */
  bool Begin(uint64_t& counter, uint64_t len, uint32_t window, int target_world, bool issues);
  void Started(uint32_t window) { ++outstanding_[window]; }
  void Completed(uint32_t window) { --outstanding_[window]; }
  void Issued(uint32_t window, int target_world) { ++issued_[window][target_world]; }
  /** A put or accumulate from `source_world` was applied to `window` (or refused). */
  void Applied(uint32_t window, int source_world);
  /** Sends `window`'s synchronisation message `what` (a Control) to `world`. */
  void SendControl(int world, uint32_t window, uint8_t what, uint64_t issued, bool exclusive,
                   bool release);
  /** Grants `window`'s lock to the waiters at the head of its queue that may hold it now. */
  void GrantWaiting(uint32_t window);
  /** Answers `source_world`'s unlock or flush of `window` if its operations are applied. */
  void MaybeAnswer(uint32_t window, int source_world);
  /** A synchronisation message arrived. */
  void OnControl(int source_world, uint32_t window, const std::vector<uint8_t>& data);
  /** Get `id`'s bytes came (none: they landed in place). */
  void GetDone(uint64_t id, const uint8_t* data, size_t len);
  /** A fresh id for a get or a fetching accumulate (never 0, below 2^32: it travels as a
   *  transport tag). */
  uint64_t NewGetId();
  /** Sends an accumulate of `payload` (the origin's elements, then for kCompareSwap the
   *  compare elements) for `len` bytes of the window at `disp`; `fetch` 0 or the get id its
   *  reply completes. */
  void SendAccumulate(int target_world, uint32_t window, uint64_t disp, Op op, Base base,
                      Update update, uint64_t fetch, const std::vector<uint8_t>& payload);
  /** A message of several blocks arrived (WindowOp's k*Blocks). */
  void OnBlocks(int source_world, uint32_t window, WindowOp op, const std::vector<uint8_t>& data);
  /** Applies accumulate `update` of `len` bytes at `in` (then `len` compare bytes) to `at`. */
  static void Apply(uint8_t* at, const uint8_t* in, size_t len, Update update, Op op, Base base);

  P2pServices& s_;
  std::unordered_map<uint32_t, Exposed> windows_;
  std::unordered_map<uint32_t, uint64_t> outstanding_;
  std::unordered_map<uint32_t, std::map<int, uint64_t>> issued_;
  std::unordered_map<uint32_t, uint64_t> applied_;
  /** Applied by origin, for passive targets' unlocks and flushes. */
  std::unordered_map<uint32_t, std::map<int, uint64_t>> applied_by_;
  /** One window's lock at its target: the holders and the queue, first come first served. */
  struct LockState {
    int exclusive = -1;
    std::set<int> shared;
    std::deque<std::pair<int, bool>> waiting;  // (origin, exclusive)
  };
  std::unordered_map<uint32_t, LockState> locks_;
  /** Unlocks and flushes waiting for their operations: (window, origin) -> (count, release). */
  std::map<std::pair<uint32_t, int>, std::pair<uint64_t, bool>> unlocks_;
  /** This rank's passive epochs: (window, target) -> granted, answered. */
  struct Passive {
    bool granted = false;
    bool answered = false;
  };
  std::map<std::pair<uint32_t, int>, Passive> passive_;
  /** One window's post-start-complete-wait epochs on this rank. */
  struct Active {
    /** Posts received, not yet started, by target. */
    std::map<int, int> posted;
    /** The targets of the access epoch under way. */
    std::vector<int> accessing;
    /** The origins of the exposure under way, and the counts those that completed sent. */
    std::vector<int> exposed_to;
    std::map<int, uint64_t> completed;
  };
  std::unordered_map<uint32_t, Active> active_;
  std::map<uint64_t, PendingGet> gets_;
  /** ExposeOwned's memory, by window. */
  std::unordered_map<uint32_t, std::vector<uint8_t>> owned_;
  uint64_t next_get_ = 1;
  /** (window, target world rank) -> its memory this rank may read directly. */
  std::map<std::pair<uint32_t, int>, Published> published_;
  /** (source world rank, transport seq) -> where an accepted transfer lands. */
  std::map<std::pair<int, uint32_t>, Landing> landings_;
};

}  // namespace nicsim::mpi
