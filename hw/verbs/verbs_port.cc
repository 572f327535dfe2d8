// SPDX-License-Identifier: Apache-2.0
// VerbsPort: device, PD, CQs and a UD QP brought to RTS; a registered receive ring with GRH
// space; sends from registered buffers to per-peer address handles; completions polled.
#include "hw/verbs/verbs_port.h"

#include <infiniband/verbs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "abi/rdma.h"
#include "hw/common/frame_codec.h"

namespace nicsim::hw::verbs {
namespace {

/** Hop limit of the GRH on sends addressed by GID (RoCE: the IP TTL). */
constexpr uint8_t kHopLimit = 64;
/** Receive and send buffers start on this boundary (a cache line; the HCA needs none). */
constexpr uint32_t kSlotAlign = 64;

Status VerbsError(const std::string& step, int err) {
  return Status::Error("verbs port: " + step + " failed: " + std::strerror(err));
}

uint32_t MtuBytes(ibv_mtu mtu) { return 128u << static_cast<int>(mtu); }

uint32_t AlignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/** Deletes a device list from ibv_get_device_list. */
struct DeviceListDeleter {
  void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
using DeviceList = std::unique_ptr<ibv_device*, DeviceListDeleter>;

/** The device list, or the "no RDMA device" error tests skip with. */
Result<std::pair<DeviceList, int>> GetDevices() {
  int count = 0;
  errno = 0;
  DeviceList list(ibv_get_device_list(&count));
  if (list == nullptr) {
    const int err = errno;
    return Status::Error(std::string("no RDMA device (ibv_get_device_list: ") +
                         (err != 0 ? std::strerror(err) : "returned NULL") + ")");
  }
  if (count == 0) return Status::Error("no RDMA device (ibv_get_device_list: none found)");
  return std::make_pair(std::move(list), count);
}

}  // namespace

Result<std::vector<std::string>> RdmaDevices() {
  Result<std::pair<DeviceList, int>> devices = GetDevices();
  if (!devices.ok()) return devices.status();
  std::vector<std::string> names;
  for (int i = 0; i < devices->second; ++i)
    names.emplace_back(ibv_get_device_name(devices->first.get()[i]));
  return names;
}

Result<std::unique_ptr<VerbsPort>> VerbsPort::Open(const VerbsPortConfig& config) {
  if (Status s = ValidateConfig(config); !s.ok()) return s;
  Result<std::pair<DeviceList, int>> devices = GetDevices();
  if (!devices.ok()) return devices.status();
  ibv_device* device = nullptr;
  std::string names;
  for (int i = 0; i < devices->second; ++i) {
    ibv_device* d = devices->first.get()[i];
    const std::string name = ibv_get_device_name(d);
    names += (names.empty() ? "" : ", ") + name;
    if (config.device.empty() || config.device == name) {
      device = d;
      break;
    }
  }
  if (device == nullptr) {
    return Status::Error("verbs port: no RDMA device '" + config.device + "' (have: " + names +
                         ")");
  }
  std::unique_ptr<VerbsPort> port(new VerbsPort(config));
  if (Status s = port->Setup(device); !s.ok()) return s;  // the destructor frees what was made
  return Result<std::unique_ptr<VerbsPort>>(std::move(port));
}

VerbsPort::VerbsPort(const VerbsPortConfig& config) : config_(config) {}

Status VerbsPort::Setup(ibv_device* device) {
  const std::string where =
      std::string(ibv_get_device_name(device)) + ":" + std::to_string(config_.port_num);
  context_ = ibv_open_device(device);
  if (context_ == nullptr) return VerbsError("ibv_open_device(" + where + ")", errno);
  if (Status s = QueryPort(where); !s.ok()) return s;
  if (Status s = MakeQueuePair(); !s.ok()) return s;
  if (Status s = MakeBuffers(); !s.ok()) return s;
  for (const VerbsPeer& peer : config_.peers) {
    if (Status s = AddPeer(peer); !s.ok()) return s;
  }
  return Status();
}

Status VerbsPort::QueryPort(const std::string& where) {
  ibv_port_attr port_attr{};
  if (int rc = ibv_query_port(context_, config_.port_num, &port_attr); rc != 0) {
    return VerbsError("ibv_query_port(" + where + ")", rc);
  }
  if (port_attr.state != IBV_PORT_ACTIVE) {
    return Status::Error("verbs port: " + where + " is not active (state " +
                         ibv_port_state_str(port_attr.state) + ")");
  }
  if (port_attr.link_layer == IBV_LINK_LAYER_ETHERNET && config_.gid_index < 0) {
    return Status::Error("verbs port: " + where +
                         " is RoCE (Ethernet link layer): it has no LIDs, give a GID index");
  }
  // The message (link header and frame) must fit the path MTU, which UD cannot exceed.
  const uint32_t path_mtu = MtuBytes(port_attr.active_mtu);
  const uint32_t largest = path_mtu - kLinkHeaderBytes;
  if (config_.mtu_bytes == 0) {
    mtu_bytes_ = std::min(kDefaultMtuBytes, largest);
  } else if (config_.mtu_bytes > largest) {
    return Status::Error("verbs port: mtu_bytes " + std::to_string(config_.mtu_bytes) +
                         " does not fit the active path MTU of " + where + " (" +
                         std::to_string(path_mtu) + " bytes less the " +
                         std::to_string(kLinkHeaderBytes) + "-byte link header)");
  } else {
    mtu_bytes_ = config_.mtu_bytes;
  }
  local_.lid = port_attr.lid;
  if (config_.gid_index >= 0) {
    ibv_gid gid{};
    if (int rc = ibv_query_gid(context_, config_.port_num, config_.gid_index, &gid); rc != 0) {
      return VerbsError("ibv_query_gid(" + where + ", " + std::to_string(config_.gid_index) + ")",
                        rc);
    }
    local_.has_gid = true;
    std::memcpy(local_.gid.data(), gid.raw, local_.gid.size());
  }
  return Status();
}

Status VerbsPort::MakeQueuePair() {
  pd_ = ibv_alloc_pd(context_);
  if (pd_ == nullptr) return VerbsError("ibv_alloc_pd", errno);
  recv_cq_ = ibv_create_cq(context_, static_cast<int>(config_.recv_buffers), nullptr, nullptr, 0);
  if (recv_cq_ == nullptr) return VerbsError("ibv_create_cq (receive)", errno);
  send_cq_ = ibv_create_cq(context_, static_cast<int>(config_.send_buffers), nullptr, nullptr, 0);
  if (send_cq_ == nullptr) return VerbsError("ibv_create_cq (send)", errno);

  ibv_qp_init_attr init{};
  init.send_cq = send_cq_;
  init.recv_cq = recv_cq_;
  init.qp_type = IBV_QPT_UD;
  init.cap.max_send_wr = config_.send_buffers;
  init.cap.max_recv_wr = config_.recv_buffers;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_ = ibv_create_qp(pd_, &init);
  if (qp_ == nullptr) return VerbsError("ibv_create_qp (UD)", errno);
  local_.qpn = qp_->qp_num;

  // RESET -> INIT (port, P_Key index 0, Q_Key) -> RTR -> RTS: a UD QP needs nothing else.
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = config_.port_num;
  attr.qkey = config_.qkey;
  if (int rc =
          ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
      rc != 0) {
    return VerbsError("ibv_modify_qp(INIT)", rc);
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  if (int rc = ibv_modify_qp(qp_, &attr, IBV_QP_STATE); rc != 0) {
    return VerbsError("ibv_modify_qp(RTR)", rc);
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = 0;
  if (int rc = ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN); rc != 0) {
    return VerbsError("ibv_modify_qp(RTS)", rc);
  }
  return Status();
}

Status VerbsPort::MakeBuffers() {
  // One registered region: the receive ring (GRH space, link header, frame) and send buffers.
  recv_slot_bytes_ = AlignUp(kGrhBytes + MessageBytes(mtu_bytes_), kSlotAlign);
  send_slot_bytes_ = AlignUp(MessageBytes(mtu_bytes_), kSlotAlign);
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  buffer_bytes_ = uint64_t{config_.recv_buffers} * recv_slot_bytes_ +
                  uint64_t{config_.send_buffers} * send_slot_bytes_;
  buffer_bytes_ = (buffer_bytes_ + page - 1) / page * page;
  buffers_ = static_cast<uint8_t*>(std::aligned_alloc(page, buffer_bytes_));
  if (buffers_ == nullptr) return Status::Error("verbs port: cannot allocate the buffers");
  std::memset(buffers_, 0, buffer_bytes_);
  mr_ = ibv_reg_mr(pd_, buffers_, buffer_bytes_, IBV_ACCESS_LOCAL_WRITE);
  if (mr_ == nullptr) return VerbsError("ibv_reg_mr", errno);

  std::vector<uint32_t> all(config_.recv_buffers);
  for (uint32_t i = 0; i < config_.recv_buffers; ++i) all[i] = i;
  if (Status s = PostReceives(all.data(), config_.recv_buffers); !s.ok()) return s;
  free_send_.resize(config_.send_buffers);
  for (uint32_t i = 0; i < config_.send_buffers; ++i) free_send_[i] = config_.send_buffers - 1 - i;
  started_ = true;
  return Status();
}

VerbsPort::~VerbsPort() {
  for (auto& [adapter, peer] : peers_) {
    if (peer.ah != nullptr) ibv_destroy_ah(peer.ah);
  }
  if (qp_ != nullptr) ibv_destroy_qp(qp_);
  if (send_cq_ != nullptr) ibv_destroy_cq(send_cq_);
  if (recv_cq_ != nullptr) ibv_destroy_cq(recv_cq_);
  if (mr_ != nullptr) ibv_dereg_mr(mr_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
  if (context_ != nullptr) ibv_close_device(context_);
  std::free(buffers_);
}

Status VerbsPort::AddPeer(const VerbsPeer& peer) {
  const std::string what = "verbs port: peer adapter " + std::to_string(peer.adapter);
  if (Status s = ValidateAddress(peer.address, what); !s.ok()) return s;
  ibv_ah_attr attr{};
  attr.port_num = config_.port_num;
  attr.sl = 0;
  if (peer.address.has_gid) {
    if (config_.gid_index < 0) {
      return Status::Error(what + ": addressed by GID but the port has no GID index");
    }
    attr.is_global = 1;
    std::memcpy(attr.grh.dgid.raw, peer.address.gid.data(), peer.address.gid.size());
    attr.grh.sgid_index = static_cast<uint8_t>(config_.gid_index);
    attr.grh.hop_limit = kHopLimit;
  } else {
    attr.dlid = peer.address.lid;
  }
  ibv_ah* ah = ibv_create_ah(pd_, &attr);
  if (ah == nullptr) return VerbsError("ibv_create_ah(" + FormatAddress(peer.address) + ")", errno);
  Peer& entry = peers_[peer.adapter];
  if (entry.ah != nullptr) ibv_destroy_ah(entry.ah);
  entry.ah = ah;
  entry.qpn = peer.address.qpn;
  return Status();
}

Status VerbsPort::PostReceives(const uint32_t* slots, uint32_t count) {
  if (count == 0) return Status();
  // One chained post per batch: the doorbell is rung once.
  std::vector<ibv_recv_wr> wrs(count);
  std::vector<ibv_sge> sges(count);
  for (uint32_t i = 0; i < count; ++i) {
    sges[i].addr = reinterpret_cast<uintptr_t>(RecvSlot(slots[i]));
    sges[i].length = kGrhBytes + MessageBytes(mtu_bytes_);
    sges[i].lkey = mr_->lkey;
    wrs[i].wr_id = slots[i];
    wrs[i].sg_list = &sges[i];
    wrs[i].num_sge = 1;
    wrs[i].next = i + 1 < count ? &wrs[i + 1] : nullptr;
  }
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qp_, wrs.data(), &bad); rc != 0) {
    return VerbsError("ibv_post_recv", rc);
  }
  return Status();
}

uint32_t VerbsPort::ReapSends() {
  std::array<ibv_wc, kMaxPollBatch> wc;
  const int n = ibv_poll_cq(send_cq_, static_cast<int>(config_.poll_batch), wc.data());
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != IBV_WC_SUCCESS) counters_.CountDrop(VerbsPortDrop::kTxCompletionError);
    free_send_.push_back(static_cast<uint32_t>(wc[i].wr_id));
  }
  return n > 0 ? static_cast<uint32_t>(n) : 0;
}

bool VerbsPort::PostSend(uint32_t slot, uint32_t len, const Peer& peer) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(SendSlot(slot));
  sge.length = len;
  sge.lkey = mr_->lkey;
  ibv_send_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  // Every send is signalled: its completion is what frees the buffer.
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.ud.ah = peer.ah;
  wr.wr.ud.remote_qpn = peer.qpn;
  wr.wr.ud.remote_qkey = config_.qkey;
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp_, &wr, &bad) == 0;
}

void VerbsPort::Send(Frame frame, uint64_t /*depart_ps*/) {
  // The receiver checks the CRC, so a frame whose CRC was deferred gets it now.
  if (frame.crc_deferred) {
    StampCrc(frame.bytes);
    frame.crc_deferred = false;
  }
  const size_t inner = frame.bytes.size();
  if (inner > mtu_bytes_) return counters_.CountDrop(VerbsPortDrop::kTxOverMtu);
  if (!started_) return counters_.CountDrop(VerbsPortDrop::kTxPortStopped);
  // A UD QP reaches one address handle per send: a broadcast is a copy to every peer.
  if (frame.dest_adapter == abi::kBroadcastAdapter) {
    for (const auto& [adapter, peer] : peers_) SendTo(frame, peer);
    return;
  }
  const auto peer = peers_.find(frame.dest_adapter);
  if (peer == peers_.end()) return counters_.CountDrop(VerbsPortDrop::kTxUnknownPeer);
  SendTo(frame, peer->second);
}

void VerbsPort::SendTo(const Frame& frame, const Peer& peer) {
  // Every buffer in flight: completions arrive as the HCA catches up; poll briefly, then drop.
  for (uint32_t attempt = 0; free_send_.empty(); ++attempt) {
    if (ReapSends() > 0) break;
    if (attempt == config_.tx_retries) return counters_.CountDrop(VerbsPortDrop::kTxQueueFull);
    ++counters_.tx_retries;
  }
  const uint32_t slot = free_send_.back();
  const uint32_t len = EncodeMessage(frame, SendSlot(slot));
  if (!PostSend(slot, len, peer)) return counters_.CountDrop(VerbsPortDrop::kTxPostFailed);
  free_send_.pop_back();
  ++counters_.tx_frames;
  counters_.tx_bytes += frame.bytes.size();
}

uint32_t VerbsPort::Poll(LinkSink& sink) {
  if (!started_) return 0;
  ReapSends();
  std::array<ibv_wc, kMaxPollBatch> wc;
  const int n = ibv_poll_cq(recv_cq_, static_cast<int>(config_.poll_batch), wc.data());
  if (n <= 0) return 0;
  std::array<uint32_t, kMaxPollBatch> repost;
  uint32_t reposts = 0;
  for (int i = 0; i < n; ++i) {
    const auto slot = static_cast<uint32_t>(wc[i].wr_id);
    if (wc[i].status == IBV_WC_WR_FLUSH_ERR) continue;  // the QP is going down: keep it
    repost[reposts++] = slot;
    if (wc[i].status == IBV_WC_LOC_LEN_ERR) {
      counters_.CountDrop(VerbsPortDrop::kOverMtu);
      continue;
    }
    if (wc[i].status != IBV_WC_SUCCESS) {
      counters_.CountDrop(VerbsPortDrop::kRxCompletionError);
      continue;
    }
    Frame frame;
    // The bytes are copied out, so the buffer can go back before the adapter sees the frame.
    if (DecodeMessage(RecvSlot(slot), wc[i].byte_len, mtu_bytes_, &frame, &counters_)) {
      sink.Receive(std::move(frame));
    }
  }
  if (Status s = PostReceives(repost.data(), reposts); !s.ok()) {
    // A QP that refuses receives is in the error state: nothing more will arrive.
    counters_.CountDrop(VerbsPortDrop::kRxCompletionError);
  }
  return static_cast<uint32_t>(n);
}

void VerbsPort::Stop() {
  if (!started_) return;
  started_ = false;
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_ERR;
  ibv_modify_qp(qp_, &attr, IBV_QP_STATE);
}

}  // namespace nicsim::hw::verbs
