// SPDX-License-Identifier: Apache-2.0
// A real-port backend for the fabric seam over libibverbs: nicsim frames travel as messages on
// an unreliable-datagram QP (InfiniBand or RoCE), the fabric the architecture assumes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "hw/common/link.h"
#include "hw/verbs/verbs_config.h"
#include "hw/verbs/verbs_frame.h"

struct ibv_device;
struct ibv_context;
struct ibv_pd;
struct ibv_cq;
struct ibv_qp;
struct ibv_mr;
struct ibv_ah;

namespace nicsim::hw::verbs {

/**
 * The RDMA devices of this host by name. With none (no HCA, or a kernel without RDMA
 * support, where ibv_get_device_list fails with ENOSYS) the error is
 * "no RDMA device (ibv_get_device_list: REASON)": tests skip with that message.
 */
Result<std::vector<std::string>> RdmaDevices();

/**
 * An adapter's fabric port on one UD QP. Single threaded: Send and Poll from one thread.
 *
 * Every message is the 8-byte link header (protocol 0x88B5, destination and source adapter)
 * and the nicsim frame: a WireHeader with its CRC computed, then the payload. A send goes to
 * the address handle of the destination adapter's peer entry; `depart_ps` is ignored (the
 * frame leaves now). Receives land in a registered ring of buffers, each with 40 bytes of GRH
 * space in front; a buffer is posted again as soon as its frame is copied out.
 *
 * The port checks only the link layer (completion status, runt, MTU, protocol). A frame that
 * passes goes to the adapter with crc_deferred false, so the microcode makes the nicsim checks
 * and counts their drops, as it does for frames from the DPDK port or the simulated fabric.
 */
class VerbsPort final : public FabricLink {
 public:
  /**
   * Opens the device and port, makes the PD, CQs and UD QP (INIT, RTR, RTS with the Q_Key),
   * registers and posts the receive ring and makes the configured peers' address handles.
   * Fails naming the step; with no device the message starts "no RDMA device".
   */
  static Result<std::unique_ptr<VerbsPort>> Open(const VerbsPortConfig& config);
  /** Destroys address handles, QP, CQs, memory region, PD and context, in that order. */
  ~VerbsPort() override;
  VerbsPort(const VerbsPort&) = delete;
  VerbsPort& operator=(const VerbsPort&) = delete;

  /** Makes (or replaces) the address handle for `adapter`. */
  Status AddPeer(const VerbsPeer& peer);

  /** Device-to-wire: stamps a deferred CRC, frames the bytes and posts the send now. */
  void Send(Frame frame, uint64_t depart_ps) override;
  /**
   * Wire-to-device: takes up to one batch of receive completions, hands every valid frame to
   * `sink` and reposts the buffers; reaps send completions too. Returns the receives taken.
   */
  uint32_t Poll(LinkSink& sink);
  /** Stops sending and receiving (the QP goes to the error state). Idempotent. */
  void Stop();

  /** This port's own address, for the peers' configuration. */
  const VerbsAddress& local_address() const { return local_; }
  /** The largest nicsim frame the port carries (config, or the path MTU's). */
  uint32_t mtu_bytes() const { return mtu_bytes_; }
  const VerbsPortConfig& config() const { return config_; }
  const VerbsPortCounters& counters() const { return counters_; }
  /** Sends posted whose completion has not been reaped. */
  uint32_t sends_in_flight() const {
    return config_.send_buffers - static_cast<uint32_t>(free_send_.size());
  }

 private:
  struct Peer {
    ibv_ah* ah = nullptr;
    uint32_t qpn = 0;
  };

  explicit VerbsPort(const VerbsPortConfig& config);
  /** Everything Open does after the device list, in order; on failure the destructor cleans up. */
  Status Setup(ibv_device* device);
  /** The port's state, path MTU, LID and GID: the message size and this end's address. */
  Status QueryPort(const std::string& where);
  /** The protection domain, both completion queues and the UD queue pair, brought to RTS. */
  Status MakeQueuePair();
  /** One registered region for the receive ring and the send buffers; every receive posted. */
  Status MakeBuffers();
  Status PostReceives(const uint32_t* slots, uint32_t count);
  /** Reaps up to one batch of send completions; returns them. */
  uint32_t ReapSends();
  /** Posts `len` bytes of send slot `slot` to `peer`; false if the post failed. */
  bool PostSend(uint32_t slot, uint32_t len, const Peer& peer);
  /** Encodes `frame` into a free send slot and posts it to `peer` (or counts the drop). */
  void SendTo(const Frame& frame, const Peer& peer);
  uint8_t* RecvSlot(uint32_t i) { return buffers_ + uint64_t{i} * recv_slot_bytes_; }
  uint8_t* SendSlot(uint32_t i) {
    return buffers_ + uint64_t{config_.recv_buffers} * recv_slot_bytes_ +
           uint64_t{i} * send_slot_bytes_;
  }

  VerbsPortConfig config_;
  uint32_t mtu_bytes_ = 0;
  VerbsAddress local_;
  ibv_context* context_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  ibv_mr* mr_ = nullptr;
  /** Receive ring then send buffers, one page-aligned allocation registered as `mr_`. */
  uint8_t* buffers_ = nullptr;
  uint64_t buffer_bytes_ = 0;
  uint32_t recv_slot_bytes_ = 0;
  uint32_t send_slot_bytes_ = 0;
  std::vector<uint32_t> free_send_;
  std::unordered_map<uint16_t, Peer> peers_;
  bool started_ = false;
  VerbsPortCounters counters_;
};

}  // namespace nicsim::hw::verbs
