// SPDX-License-Identifier: Apache-2.0
// MPI between ranks of one node through the postbox engines of reference 000 (ulp/postbox), in
// the simulated node's host memory, with the host's copy costs and a cache-line transfer
// latency before the other CPU sees what was written (mpi.intranode=postbox).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "hal/task_host.h"
#include "ulp/host_copy_time.h"
#include "ulp/mpi/intranode_path.h"
#include "ulp/mpi/node_segments.h"
#include "ulp/mpi/path_clock.h"
#include "ulp/postbox/platform.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/sender.h"

namespace nicsim::mpi {

class PostboxPath;

/**
 * What the ranks of one node share: the names of the segments made so far (each lies in the
 * memory of the rank that made it, mapped into the others by name) and each rank's path, so
 * a rank that writes can wake the one that polls. Local rank i is the i-th of `world_ranks`.
 */
class PostboxNode {
 public:
  /**
   * `world_ranks`: the node's ranks, ascending; `wake_ps`: from a store on one CPU to the
   * line being readable on another (the cache-line transfer), which a polling rank pays
   * before it sees a posting or an acknowledgement.
   */
  PostboxNode(std::vector<uint32_t> world_ranks, ulp::postbox::Params params, uint64_t wake_ps);

  const ulp::postbox::Topology& topology() const { return topology_; }
  const ulp::postbox::Params& params() const { return params_; }
  uint64_t wake_ps() const { return wake_ps_; }
  /** Ranks on the node. */
  uint32_t size() const { return ranks_.size(); }
  /** The local rank of world rank `world`, or -1 if it is on another node. */
  int LocalOf(uint32_t world) const { return ranks_.LocalOf(world); }
  /** The world rank of local rank `local`. */
  uint32_t WorldOf(uint32_t local) const { return ranks_.WorldOf(local); }

  /** The segments made on this node, by name. */
  NodeSegments& segments() { return segments_; }

  /** Records local rank `local`'s path (PostboxPath does, when made). */
  void Join(uint32_t local, PostboxPath* path) { paths_[local] = path; }
  /** Local rank `local`'s path (nullptr before it joined). */
  PostboxPath* path(uint32_t local) const { return paths_[local]; }

 private:
  NodeRanks ranks_;
  ulp::postbox::Topology topology_;
  ulp::postbox::Params params_;
  uint64_t wake_ps_;
  NodeSegments segments_{"postbox"};
  std::vector<PostboxPath*> paths_;
};

/**
 * One rank's postbox sender and receiver, driven in simulated time. A send posts what it can
 * at once; the copy into shared memory takes the rank's CPU at the host's copy bandwidth, and
 * the receiver polls once the posting is visible to it (copy done + the cache-line transfer).
 * Its poll copies the bytes out (its own CPU time), hands each whole message to MPI once that
 * copy is done and acknowledges, which wakes the senders that were waiting for slots, blocks
 * or quota. Polls happen exactly when something became visible: a model of a rank that polls
 * its postboxes while it waits, without the cost of simulating every empty poll.
 */
class PostboxPath final : public IntranodePath {
 public:
  /** The path of world rank `world` (on `node`); `copy_ps_per_byte` as the MPI layer's. */
  static Result<std::unique_ptr<PostboxPath>> Create(PostboxNode& node, uint32_t world,
                                                     hal::TaskHost& host, double copy_ps_per_byte);
  ~PostboxPath() override;

  bool Reaches(uint32_t world) const override { return node_.LocalOf(world) >= 0; }
  void Send(uint32_t dest, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes,
            std::function<void()> on_done) override;
  void OnDeliver(DeliverFn fn) override { deliver_ = std::move(fn); }

  /** Sends accepted whose bytes are not all posted yet, and messages not yet handed over. */
  size_t in_flight() const { return outbound_.size() + deliveries_waiting_; }
  const ulp::postbox::SenderStats& sender_stats() const { return sender_->stats(); }
  const ulp::postbox::ReceiverStats& receiver_stats() const { return receiver_->stats(); }
  /** Times this rank polled because something became visible to it. */
  uint64_t polls() const { return polls_; }

 private:
  /** A send whose bytes the engine posts from here (SendInPlace) until it is done. */
  struct Outbound {
    std::vector<uint8_t> bytes;  // header, then the message
    uint32_t to = 0;             // local rank
    std::function<void()> on_done;
  };

  PostboxPath(PostboxNode& node, uint32_t local, hal::TaskHost& host, double copy_ps_per_byte);
  /** Polls `delay_ps` from now (once per distinct time). */
  void WakeAfter(uint64_t delay_ps);
  /** Drains the postboxes, then posts what waited for acknowledgements. */
  void Serve();
  /** Charges the copies of what was just posted, finishes sends and wakes their receivers. */
  void AfterPosting();

  PostboxNode& node_;
  uint32_t local_;
  hal::TaskHost& host_;
  TaskSegments platform_;
  std::unique_ptr<ulp::postbox::Sender> sender_;
  std::unique_ptr<ulp::postbox::Receiver> receiver_;
  ulp::HostCopyTime copies_;
  PathClock clock_;
  DeliverFn deliver_;
  std::map<ulp::postbox::SendHandle, Outbound> outbound_;
  uint64_t bytes_posted_seen_ = 0;
  uint64_t bytes_copied_seen_ = 0;
  uint64_t acks_seen_ = 0;
  uint32_t deliveries_waiting_ = 0;
  uint64_t polls_ = 0;
};

}  // namespace nicsim::mpi
