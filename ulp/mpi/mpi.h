// SPDX-License-Identifier: Apache-2.0
// An MPI layer over the reliable transport, one object per rank: communicators (world, dup,
// split), blocking and nonblocking point-to-point with source and tag matching (wildcards
// included), probes and synchronous sends (the messaging itself is a PointToPoint's,
// point_to_point.h), and collectives built on point-to-point. Names and semantics follow MPI's;
// the C binding (ulp/mpi/capi) packs datatypes itself and calls the byte-level collectives here.
//
// Blocking calls wait through a Blocker: in the simulator each rank runs its program on its
// own thread and hands control back to the event loop while it waits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hal/task_host.h"
#include "ulp/mpi/blocker.h"
#include "ulp/mpi/datatype.h"
#include "ulp/mpi/group.h"
#include "ulp/mpi/half_rdma_reduce.h"
#include "ulp/mpi/intranode_path.h"
#include "ulp/mpi/limits.h"
#include "ulp/mpi/mpi_config.h"
#include "ulp/mpi/mpi_stats.h"
#include "ulp/mpi/multicast_groups.h"
#include "ulp/mpi/one_sided.h"
#include "ulp/mpi/p2p_services.h"
#include "ulp/mpi/point_to_point.h"
#include "ulp/mpi/request.h"
#include "ulp/transport/transport.h"

namespace nicsim::mpi {

class Mpi {
 public:
  using RequestState = mpi::RequestState;
  using Request = mpi::Request;

  Mpi(int world_rank, int world_size, ulp::Transport& transport, hal::TaskHost& host,
      Blocker& blocker, const MpiConfig& config = MpiConfig{});
  ~Mpi();
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;

  const Comm& world() const { return world_; }

  /**
   * Sends to the ranks `path` Reaches go through it instead of the transport (mpi.intranode),
   * and what it delivers is received like a transport delivery. Set before the program runs;
   * `path` must outlive this object. nullptr: every message uses the transport.
   */
  void UseIntranodePath(IntranodePath* path) { p2p_.UseIntranodePath(path); }
  /** Bytes of the staging area the first queued send waits for (0: no send waits for
   *  memory). A job that ends with no event left names it: nothing may ever give it back. */
  uint64_t staging_wait_bytes() const { return p2p_.staging_wait_bytes(); }

  /** The largest AllocMem area: one 16 MiB page (every area takes a page of its own). */
  static constexpr size_t kAllocMemMaxBytes = size_t{16} << 20;
  /**
   * Memory for message buffers that the adapter reaches directly (MPI_Alloc_mem): it lies in
   * the task's memory, contiguous, so a rendezvous message sent from it is read by RDMA from
   * the buffer itself, and one received into it lands there, with no copy by the CPU (for
   * dense datatypes; others are packed as usual). At most kAllocMemMaxBytes each; nullptr if
   * the task has no room. Valid until the Mpi object goes.
   */
  void* AllocMem(size_t bytes) { return p2p_.AllocMem(bytes); }
  double Wtime() { return static_cast<double>(blocker_.NowPs()) * 1e-12; }

  // Communicators (communicators.cc; collective over `comm`). The members agree on a context
  // none has used:
  // ranks may have made different communicators before (each counts only its own).
  Comm Dup(const Comm& comm);
  /**
   * A duplicate made without a message: the n-th Idup of a communicator takes the n-th of the
   * contexts set aside for its context (members start collectives on a communicator in the
   * same order, so each takes the same one). A communicator that is itself such a duplicate,
   * or that has had its kIdupChildren, is duplicated as Dup does (collective).
   */
  Comm Idup(const Comm& comm);
  /** Ranks with the same color form a communicator, ordered by (key, rank in comm). */
  Comm Split(const Comm& comm, int color, int key);
  /**
   * A communicator of `world_ranks` (in that order), collective over those ranks only (each
   * calls with the same list, which includes it); `parent` is a communicator they all belong
   * to, whose context carries their agreement.
   */
  Comm CreateGroup(const Comm& parent, std::vector<int> world_ranks);

  // Point to point.
  Request Isend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                const Comm& comm);
  Request Irecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                const Comm& comm);
  void Send(const void* buf, size_t count, const Datatype& type, int dest, int tag,
            const Comm& comm);
  Status Recv(void* buf, size_t count, const Datatype& type, int source, int tag, const Comm& comm);
  /** A synchronous send: complete only once the receiver has matched it (always rendezvous). */
  Request Issend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                 const Comm& comm);
  /** The status of the oldest matching message that arrived unreceived, if there is one. */
  std::optional<Status> Iprobe(int source, int tag, const Comm& comm) const;
  /** Waits until a matching message has arrived; its status (it stays to be received). */
  Status Probe(int source, int tag, const Comm& comm);
  Status Wait(const Request& r);
  /** A collective message whose length differed from what this rank's call expected. */
  using CountMismatch = mpi::CountMismatch;
  /** The first such message since the last take (the ranks passed different counts to a
   *  collective); taking it clears it. */
  std::optional<CountMismatch> TakeCountMismatch() { return p2p_.TakeCountMismatch(); }
  void Waitall(const std::vector<Request>& rs);
  /** Waits until one of `rs` (not empty) is complete; the lowest index of those that are. */
  size_t Waitany(const std::vector<Request>& rs);
  bool Test(const Request& r) const;
  /** Sendrecv with separate buffers. */
  Status Sendrecv(const void* sbuf, size_t scount, const Datatype& stype, int dest, int stag,
                  void* rbuf, size_t rcount, const Datatype& rtype, int source, int rtag,
                  const Comm& comm);

  // Collectives (collectives.cc, collectives_ring.cc).
  /** Long messages, as MPICH's default algorithms draw the line: an allgather, broadcast or
   *  allreduce of at least this many bytes in all goes around a ring (each link carries each
   *  byte about once or twice, where a tree sends the whole message once per level); shorter
   *  ones go by gather, binomial tree, reduce then broadcast (fewer steps). */
  static constexpr size_t kLongMessageBytes = 512 * 1024;
  /** A point-to-point broadcast of `len` bytes goes around the ring (else down the tree). */
  static bool RingBcastFor(size_t len, int ranks) { return len >= kLongMessageBytes && ranks > 2; }
  /** An allgather of `total` bytes in all goes around the ring (else gather and broadcast). */
  static bool RingAllgatherFor(size_t total) { return total >= kLongMessageBytes; }
  /** An allreduce of `bytes` with `combine` goes around the ring (else reduce and broadcast):
   *  long, an op that commutes on known elements, and the point-to-point reduce and bcast. */
  static bool RingAllreduceFor(size_t bytes, int ranks, const Combiner& combine,
                               const MpiConfig& config) {
    return bytes >= kLongMessageBytes && ranks > 2 && combine.commutative &&
           combine.element_bytes > 0 && config.reduce == ReduceTransport::kPointToPoint &&
           config.bcast == CollectiveTransport::kPointToPoint;
  }
  /** A complete exchange whose largest block is `block` bytes goes pairwise, one partner at a
   *  time (else every block at once): the rendezvous its blocks take pulls each from its
   *  source, and a source serves its pulls in turn, so with every block at once the
   *  sources serving one receiver at a moment collide on its link while other links idle. */
  static bool PairwiseExchangeFor(size_t block, const MpiConfig& config) {
    return block > config.eager_limit;
  }
  void Barrier(const Comm& comm);
  void Bcast(void* buf, size_t count, const Datatype& type, int root, const Comm& comm);
  void Reduce(const void* sbuf, void* rbuf, size_t count, const Datatype& type, Op op, int root,
              const Comm& comm);
  void Allreduce(const void* sbuf, void* rbuf, size_t count, const Datatype& type, Op op,
                 const Comm& comm);
  void Gather(const void* sbuf, size_t count, const Datatype& type, void* rbuf, int root,
              const Comm& comm);
  void Scatter(const void* sbuf, size_t count, const Datatype& type, void* rbuf, int root,
               const Comm& comm);
  void Allgather(const void* sbuf, size_t count, const Datatype& type, void* rbuf,
                 const Comm& comm);
  void Alltoall(const void* sbuf, size_t count, const Datatype& type, void* rbuf, const Comm& comm);

  // Collectives on packed bytes (collectives_bytes.cc), for the C binding: `counts` are each
  // rank's bytes, in rank order; the blocks lie back to back in rank order.
  /** out (root only) = in_0 op in_1 op ... in rank order, even for an op that does not commute. */
  void ReduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine, int root,
                   const Comm& comm);
  void AllreduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                      const Comm& comm);
  /** The root receives every rank's block (`counts` matters at the root only). */
  void Gatherv(const uint8_t* in, size_t bytes, uint8_t* out, const std::vector<size_t>& counts,
               int root, const Comm& comm);
  /** Each rank receives its block of the root's `in` (`counts` matters at the root only). */
  void Scatterv(const uint8_t* in, const std::vector<size_t>& counts, uint8_t* out, size_t bytes,
                int root, const Comm& comm);
  /** Every rank receives every rank's block (every rank knows `counts`). */
  void Allgatherv(const uint8_t* in, size_t bytes, uint8_t* out, const std::vector<size_t>& counts,
                  const Comm& comm);
  /** Rank i's block j goes to rank j, where it is block i. */
  void Alltoallv(const uint8_t* in, const std::vector<size_t>& send_counts, uint8_t* out,
                 const std::vector<size_t>& recv_counts, const Comm& comm);
  /** The reduction of every rank's `in`, scattered: rank i gets counts[i] bytes of it. */
  void ReduceScatter(const uint8_t* in, uint8_t* out, const std::vector<size_t>& counts,
                     const Combiner& combine, const Comm& comm);
  /** Inclusive (out = in_0 op ... op in_rank) or exclusive (up to in_rank-1; rank 0's out is
   *  left as it is) prefix reduction. */
  void Scan(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine, bool exclusive,
            const Comm& comm);

  // One-sided communication (windows.cc; how the bytes move: one_sided.h). Displacements are
  // in bytes from the start of the target's window.
  /** A window over `bytes` at `base` of every member of `comm` (collective). */
  Win WinCreate(void* base, size_t bytes, const Comm& comm);
  /** A window over `bytes` this layer allocates, in an AllocMem area when one holds it (there
   *  puts and gets move by RDMA with no copy), else in memory the CPU copies through; its
   *  address in `*base` (collective). */
  Win WinAllocate(size_t bytes, const Comm& comm, void** base);
  /** Adds `bytes` at `base` to this rank's part of `win` (a window made with none: dynamic),
   *  reached at displacements from `disp` (the address the program attached). Local. */
  void WinAttach(const Win& win, uint64_t disp, void* base, size_t bytes);
  /** Takes the memory attached at `disp` out of `win`. Local. */
  void WinDetach(const Win& win, uint64_t disp);
  /** Ends `win` (collective): a fence, then `last` (if given) while the window's memory is
   *  still there with every operation applied, then the window goes. Memory WinAllocate took
   *  in plain memory goes with it; an AllocMem area stays the rank's, as every one does. */
  void WinFree(const Win& win, const std::function<void()>& last = nullptr);
  void Put(const void* buf, size_t count, const Datatype& type, int target, uint64_t disp,
           const Win& win);
  void Get(void* buf, size_t count, const Datatype& type, int target, uint64_t disp,
           const Win& win);
  /** Combines the elements at `buf` into the target's window with `op` (over `type`'s base
   *  elements), element by element, as one atomic step per element among accumulates. */
  void Accumulate(const void* buf, size_t count, const Datatype& type, Op op, int target,
                  uint64_t disp, const Win& win,
                  OneSided::Update update = OneSided::Update::kCombine);
  /** Accumulate that also gives, in `result`, the target's elements as they were before it
   *  (complete at the next fence). */
  void GetAccumulate(const void* buf, void* result, size_t count, const Datatype& type, Op op,
                     int target, uint64_t disp, const Win& win,
                     OneSided::Update update = OneSided::Update::kCombine);
  /** GetAccumulate of one element. */
  void FetchAndOp(const void* buf, void* result, const Datatype& type, Op op, int target,
                  uint64_t disp, const Win& win);
  /** Replaces the target's element with `*buf` if it equals `*compare`; `result` gets the
   *  element as it was (complete at the next fence). */
  void CompareAndSwap(const void* buf, const void* compare, void* result, const Datatype& type,
                      int target, uint64_t disp, const Win& win);
  /** Put, Get and (Get)Accumulate of packed bytes over blocks of the target's window (a
   *  target datatype with gaps: OneSided::PutBlocks). */
  void PutBlocks(const uint8_t* packed, const OneSided::Blocks& blocks, int target, const Win& win);
  void GetBlocks(uint8_t* packed, const OneSided::Blocks& blocks, int target, const Win& win);
  void AccumulateBlocks(const uint8_t* packed, uint8_t* result, const OneSided::Blocks& blocks,
                        Base base, OneSided::Update update, Op op, int target, const Win& win);
  /** Passive target: the kinds of lock a window's target grants. */
  enum class LockType { kExclusive, kShared };
  /** Starts a passive epoch at `target`: returns once its lock on `win` is this rank's (one
   *  exclusive holder, or any number of shared ones; first come, first served). */
  void WinLock(LockType type, int target, const Win& win);
  /** Ends it: returns once every operation this rank started at `target` is complete there
   *  and here, and the lock is given back. */
  void WinUnlock(int target, const Win& win);
  /** As WinUnlock, keeping the lock (a target sent no put or accumulate since the last flush
   *  is not asked: this rank's own completion is all there is to wait for). */
  void WinFlush(int target, const Win& win);
  /** A shared lock at every member of the window's communicator (asked of all at once). */
  void WinLockAll(const Win& win);
  /** WinUnlock at every member; WinFlush at every member. */
  void WinUnlockAll(const Win& win);
  void WinFlushAll(const Win& win);
  /** Generalised active target: exposes this rank's window to `origins` (ranks of the
   *  window's communicator) until WinWait. */
  void WinPost(const std::vector<int>& origins, const Win& win);
  /** Starts an access epoch to `targets`: returns once each has posted. */
  void WinStart(const std::vector<int>& targets, const Win& win);
  /** Ends the access epoch: this rank's operations are complete here and each target is told
   *  how many to wait for. */
  void WinComplete(const Win& win);
  /** Ends the exposure: returns once every origin completed and its operations are applied. */
  void WinWait(const Win& win);
  /** WinWait if the exposure can end now (true), else nothing. */
  bool WinTest(const Win& win);
  /**
   * Ends an epoch on `win` (collective): every put, get and accumulate the members started on
   * it is complete at its origin (buffers free, gets' bytes in place) and at its target (the
   * window holds what was put and accumulated) before any member returns.
   */
  void Fence(const Win& win);

  using Stats = MpiStats;
  const Stats& stats() const { return stats_; }
  /**
   * Forgets every receive posted: the program that posted them was unwound (its job was
   * abandoned), so nothing may be written into its buffers any more. Messages that still
   * arrive are kept as unexpected.
   */
  void AbandonRequests();
  /**
   * Cancels receive `r` if no message has matched it yet: it is then done, with nothing
   * received and `status.cancelled` set. False if it had matched (it completes as usual).
   */
  bool CancelRecv(const Request& r);
  /** Messages that arrived with no matching receive posted yet. */
  size_t unexpected_queued() const { return p2p_.unexpected_queued(); }

 private:
  /** WinUnlock (`release`) and WinFlush at `targets` (ranks of the window's communicator):
   *  every one asked at once, then every answer waited for. */
  void EndPassive(const std::vector<int>& targets, const Win& win, bool release);
  /** Counts one CPU copy of `bytes` of message data; the rank's CPU is busy with it. */
  void CountCopy(size_t bytes) { p2p_.cpu().Count(bytes); }
  /** In the program's call: returns when the rank's CPU has finished the copies so far. */
  void SpendCopyTime() { p2p_.cpu().Spend(); }
  Request StartRecv(void* buf, size_t count, const Datatype& type, int source, int tag,
                    uint32_t context, const Comm& comm);
  Request StartSend(const void* buf, size_t count, const Datatype& type, int dest, int tag,
                    uint32_t context, const Comm& comm, bool synchronous = false);
  uint32_t NewContext();
  /** The next context, once the members of a new communicator have shared their next ones. */
  uint32_t AgreeOnContext(uint32_t largest_next);
  /** A context none of `members` has used, agreed by all of them (collective over them). */
  uint32_t FreshContextAmong(const Comm& members);
  /** The members of `win` exchange what each exposes for direct reads (a collective). */
  void Publish(const Win& win);
  /** Where rank r's block of a collective's buffer lies (count elements of type). */
  struct Block {
    uint8_t* at;
    size_t count;
    const Datatype* type;
  };
  /** A block that is only read: what a rank sends. */
  struct SourceBlock {
    const uint8_t* at;
    size_t count;
    const Datatype* type;
  };
  /** The complete exchange behind alltoall and alltoallv: send(r) goes to every other rank r
   *  and recv(r) is filled from it (a rank's own block is the caller's). */
  void CompleteExchange(const std::function<SourceBlock(int rank)>& send,
                        const std::function<Block(int rank)>& recv, int tag, const Comm& comm);
  /** Passes every rank's block around the ring of `comm` (each rank's own is in place). */
  void RingAllgather(const std::function<Block(int rank)>& block, const Comm& comm);
  /** A long broadcast of `len` bytes at `bytes`: the root scatters a piece to each rank, then
   *  the pieces go around the ring (van de Geijn's broadcast). */
  void ScatterRingBcast(uint8_t* bytes, size_t len, int root, const Comm& comm);
  /** out = the reduction of every rank's `in` (out may be in): a ring reduce-scatter of n
   *  element-aligned pieces, then a ring allgather of the reduced pieces. */
  void RingAllreduceBytes(const uint8_t* in, uint8_t* out, size_t bytes, const Combiner& combine,
                          const Comm& comm);
  /** Binomial-tree broadcast of packed bytes over point to point. */
  void TreeBcast(void* buf, size_t count, const Datatype& type, int root, const Comm& comm);
  /** The communicator's multicast group, formed (collectively) on first use; false if some
   *  member could not open it (the collectives then go point to point). */
  bool MulticastGroup(const Comm& comm);
  /** True if Bcast and Barrier go through the communicator's group (multicast or chained). */
  bool GroupCollectives() const {
    return config_.bcast == CollectiveTransport::kMulticast ||
           config_.bcast == CollectiveTransport::kChained;
  }
  /** Bcast of `bytes` through the communicator's group, in slot-sized messages. */
  void MulticastBcast(uint8_t* bytes, size_t len, int root, const Comm& comm);
  void MulticastBarrier(const Comm& comm);
  /** True if ReduceBytes of `bytes` with `combine` goes by half RDMA (the same on every rank). */
  bool UseHalfRdma(size_t bytes, const Combiner& combine) const {
    return config_.reduce == ReduceTransport::kHalfRdma &&
           HalfRdmaReduce::Suits(bytes, combine, config_.half_rdma_min_bytes);
  }

  ulp::Transport& transport_;
  Blocker& blocker_;
  MpiConfig config_;
  Stats stats_;
  Comm world_;
  uint32_t next_context_ = 2;
  /** Idup's contexts: kDerivedContextBit set, then each agreed context's kIdupChildren in
   *  turn. */
  static constexpr uint32_t kIdupChildren = 8;
  /** Idups made so far, by the context of the communicator duplicated. */
  std::unordered_map<uint32_t, uint32_t> idups_;
  PointToPoint p2p_;
  /** The windows this rank exposes and the operations it started on others'. */
  OneSided one_sided_;
  /** The communicators' multicast groups (mpi.bcast=multicast or chained). */
  MulticastGroups mcast_;
  /** Reductions by half RDMA (mpi.reduce=half_rdma). */
  HalfRdmaReduce half_rdma_;
};

}  // namespace nicsim::mpi
