// SPDX-License-Identifier: Apache-2.0
// MPI between ranks of one node through the push-pull engines of reference 003 (ulp/pushpull)
// in the simulated node's host memory: pushes copied in and out, the rest pulled in one copy.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
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
#include "ulp/pushpull/config.h"
#include "ulp/pushpull/platform.h"
#include "ulp/pushpull/receiver.h"
#include "ulp/pushpull/sender.h"

namespace nicsim::mpi {

class PushPullPath;

/**
 * What the ranks of one node share for push-pull: their channels (each in the memory of the
 * receiving rank that made it, found by name) and each rank's path, so a rank that writes can
 * wake the one that polls. Local rank i is the i-th of `world_ranks`.
 */
class PushPullNode {
 public:
  /** `wake_ps`: from a store on one CPU until another CPU polling the line sees it. */
  PushPullNode(std::vector<uint32_t> world_ranks, ulp::pushpull::Params params, uint64_t wake_ps);

  const ulp::pushpull::Params& params() const { return params_; }
  uint64_t wake_ps() const { return wake_ps_; }
  /** Ranks on the node. */
  uint32_t size() const { return ranks_.size(); }
  /** The local rank of world rank `world`, or -1 if it is on another node. */
  int LocalOf(uint32_t world) const { return ranks_.LocalOf(world); }
  /** The world rank of local rank `local`. */
  uint32_t WorldOf(uint32_t local) const { return ranks_.WorldOf(local); }
  /** The channels made on this node, by name. */
  NodeSegments& segments() { return segments_; }

  /** Records local rank `local`'s path (PushPullPath does, when made; nullptr when gone). */
  void Join(uint32_t local, PushPullPath* path) { paths_[local] = path; }
  /** Local rank `local`'s path (nullptr before it joined). */
  PushPullPath* path(uint32_t local) const { return paths_[local]; }

 private:
  NodeRanks ranks_;
  ulp::pushpull::Params params_;
  uint64_t wake_ps_;
  NodeSegments segments_{"pushpull"};
  std::vector<PushPullPath*> paths_;
};

/**
 * The push-pull Platform of one simulated rank: channels in its task memory, registered with
 * the node. The whole simulation is one process, so the cross-space copy of a pull round is a
 * memcpy from the sender's buffer into the receiver's; the token names the local rank.
 */
class TaskPushPullPlatform final : public ulp::pushpull::Platform {
 public:
  TaskPushPullPlatform(hal::TaskHost& host, PushPullNode& node, uint32_t local)
      : Platform(segments_), segments_(host, node.segments()), node_(node), local_(local) {}
  uint64_t ProcessToken() const override { return local_; }
  /** memcpy piece by piece; always kDone (one address space). */
  ulp::pushpull::CrossCopy CopyTo(uint64_t token, const ulp::pushpull::Extent* local,
                                  size_t local_count, const ulp::pushpull::Extent* remote,
                                  size_t remote_count) override;

 private:
  TaskSegments segments_;
  PushPullNode& node_;
  uint32_t local_;
};

/**
 * One rank's push-pull sender and receiver, driven in simulated time. Each path message (an
 * eager message, a rendezvous request, clear to send or data) is one push-pull message: an
 * 8-byte (wire, tag) header and the bytes, under an engine tag that numbers the messages of
 * each (sender, receiver) pair. The receiver learns a message's size from its first push and
 * posts a buffer of that size there and then (Receiver::OnArrival), so pushed bytes are copied
 * once, out of the slot into that buffer, and the rest is pulled: the sender copies it from
 * its buffer into the receiver's (Platform::CopyTo). Each copy takes the CPU that makes it at
 * the host's copy bandwidth; the other rank polls once a write is visible to it (copy done +
 * the cache-line transfer). Messages reach MPI in the order they were sent.
 */
class PushPullPath final : public IntranodePath {
 public:
  /** The path of world rank `world` (on `node`); `copy_ps_per_byte` as the MPI layer's. */
  static Result<std::unique_ptr<PushPullPath>> Create(PushPullNode& node, uint32_t world,
                                                      hal::TaskHost& host, double copy_ps_per_byte);
  ~PushPullPath() override;

  bool Reaches(uint32_t world) const override { return node_.LocalOf(world) >= 0; }
  void Send(uint32_t dest, uint32_t wire, uint32_t tag, std::vector<uint8_t> bytes,
            std::function<void()> on_done) override;
  void OnDeliver(DeliverFn fn) override { deliver_ = std::move(fn); }

  /** Sends not finished, messages arriving, and messages not yet handed over. */
  size_t in_flight() const;
  const ulp::pushpull::SenderStats& sender_stats() const { return sender_->stats(); }
  const ulp::pushpull::ReceiverStats& receiver_stats() const { return receiver_->stats(); }
  /** Times this rank polled because something became visible to it. */
  uint64_t polls() const { return polls_; }
  /** Messages handed to MPI. */
  uint64_t delivered() const { return delivered_; }

 private:
  /** A send whose bytes the engine reads from here (zero copy) until it is done. */
  struct Outbound {
    std::vector<uint8_t> bytes;  // header, then the message
    uint32_t to = 0;             // local rank
    std::function<void()> on_done;
  };
  /** A receive posted for an arriving message. */
  struct Inbound {
    ulp::pushpull::ReceiveHandle handle = 0;
    std::vector<uint8_t> buffer;
  };

  PushPullPath(PushPullNode& node, uint32_t local, hal::TaskHost& host, double copy_ps_per_byte);
  /** The arrival hook: posts a buffer for the message whose first push is here. */
  void PostFor(uint32_t source, uint32_t tag, uint64_t bytes);
  /** Polls `delay_ps` from now (once per distinct time). */
  void WakeAfter(uint64_t delay_ps);
  /** Takes pushes out, finishes pull rounds, hands over messages, then serves its sends. */
  void Serve();
  /** Charges the sender's copies (pushes, pull rounds), finishes sends, wakes receivers. */
  void AfterSending();

  PushPullNode& node_;
  uint32_t local_;
  TaskPushPullPlatform platform_;
  std::unique_ptr<ulp::pushpull::Sender> sender_;
  std::unique_ptr<ulp::pushpull::Receiver> receiver_;
  ulp::HostCopyTime copies_;
  PathClock clock_;
  DeliverFn deliver_;
  std::map<ulp::pushpull::SendHandle, Outbound> outbound_;
  std::vector<std::deque<Inbound>> inbound_;  // by source local rank, in arrival order
  std::vector<uint32_t> next_tag_;            // by destination: the next message's number
  std::vector<uint32_t> expected_tag_;        // by source: the number the next one must have
  uint64_t sender_bytes_seen_ = 0;            // pushed + pulled bytes charged so far
  uint64_t sender_steps_seen_ = 0;            // pushes posted + rounds served so far
  uint64_t receiver_bytes_seen_ = 0;          // bytes copied out of slots charged so far
  uint64_t receiver_steps_seen_ = 0;          // slots freed + pull requests written so far
  uint32_t deliveries_waiting_ = 0;
  uint64_t polls_ = 0;
  uint64_t delivered_ = 0;
};

}  // namespace nicsim::mpi
