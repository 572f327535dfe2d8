// SPDX-License-Identifier: Apache-2.0
#include "ulp/ip/ip_interface.h"

#include <algorithm>

#include "abi/packet.h"
#include "base/check.h"

namespace nicsim::ulp::ip {

IpInterface::IpInterface(hal::Port& port, hal::TaskHost& host, IpConfig config,
                         std::vector<hal::Peer> members)
    : port_(port), host_(host), config_(config), members_(std::move(members)),
      reassembler_(config.reassembly_timeout_ps, stats_) {
  const std::optional<uint32_t> address = AddressOf(port.self());
  NICSIM_CHECK(address.has_value(), "window %u has no IP address", port.self().window);
  address_ = *address;
  frame_bytes_ = std::min(port.max_payload(), config.frame_bytes);
  NICSIM_CHECK(frame_bytes_ >= kHeaderBytes + 8, "frames of %u bytes are too small for IP",
               frame_bytes_);
  port_.OnReceive([this](const abi::RecvFrameHeader& h, const uint8_t* payload) {
    Receive(h, payload);
  });
}

IpInterface::~IpInterface() { port_.OnReceive(nullptr); }

Status IpInterface::Send(uint32_t dst, uint8_t protocol, const uint8_t* payload, uint32_t len) {
  if (len > kMaxPayloadBytes) {
    return Status::Error("IP datagram payload of " + std::to_string(len) + " bytes, more than " +
                         std::to_string(kMaxPayloadBytes));
  }
  std::vector<hal::Peer> to;
  const bool broadcast = IsBroadcast(dst);
  if (broadcast) {
    for (const hal::Peer& m : members_) {
      if (!(m == port_.self())) to.push_back(m);
    }
  } else {
    const std::optional<hal::Peer> peer = PeerOf(dst);
    if (!peer || *peer == port_.self()) {
      ++stats_.unroutable;
      return Status::Error("no route to " + FormatAddress(dst));
    }
    to.push_back(*peer);
  }
  Header h;
  h.id = next_id_++;
  h.protocol = protocol;
  h.src = address_;
  h.dst = dst;
  const std::vector<std::vector<uint8_t>> packets = Fragment(h, payload, len, frame_bytes_);
  ++stats_.datagrams_sent;
  ++(broadcast ? stats_.broadcast_sent : stats_.unicast_sent);
  if (packets.size() > 1) ++stats_.fragmented_sent;
  stats_.bytes_sent += len;
  for (const hal::Peer& peer : to) {
    for (const std::vector<uint8_t>& p : packets) {
      port_.Send(peer, p.data(), static_cast<uint32_t>(p.size()), kIpUlpWord);
      ++stats_.frames_sent;
    }
  }
  return Status();
}

void IpInterface::Receive(const abi::RecvFrameHeader& frame, const uint8_t* payload) {
  ++stats_.frames_received;
  if (frame.type != static_cast<uint8_t>(abi::PacketType::kFifo) || frame.ulp_word != kIpUlpWord) {
    ++stats_.drop_not_ip;
    return;
  }
  Header h;
  switch (ReadHeader(payload, frame.len_bytes, &h)) {
    case HeaderError::kMalformed:
      ++stats_.drop_malformed;
      return;
    case HeaderError::kBadChecksum:
      ++stats_.drop_bad_checksum;
      return;
    case HeaderError::kNone:
      break;
  }
  if (AddressOf(hal::Peer{frame.src_adapter, frame.src_window}) != h.src) {
    ++stats_.drop_bad_source;
    return;
  }
  if (h.dst != address_ && !IsBroadcast(h.dst)) {
    ++stats_.drop_not_for_us;
    return;
  }
  std::optional<std::vector<uint8_t>> whole =
      reassembler_.Feed(host_.NowPs(), h, payload + kHeaderBytes, frame.len_bytes - kHeaderBytes);
  ArmTimer();
  if (!whole) return;
  const auto len = static_cast<uint32_t>(whole->size() - kHeaderBytes);
  ++stats_.datagrams_delivered;
  stats_.bytes_delivered += len;
  Header out = h;
  out.more_fragments = false;
  out.offset_bytes = 0;
  out.total_length = static_cast<uint16_t>(whole->size());
  if (deliver_) deliver_(out, whole->data() + kHeaderBytes, len);
}

void IpInterface::ArmTimer() {
  if (timer_armed_) return;
  const std::optional<uint64_t> due = reassembler_.NextDeadline();
  if (!due) return;
  timer_armed_ = true;
  const uint64_t now = host_.NowPs();
  host_.After(*due > now ? *due - now : 0, [this, alive = life_.watch()] {
    if (!alive.alive()) return;
    timer_armed_ = false;
    reassembler_.Expire(host_.NowPs());
    ArmTimer();
  });
}

}  // namespace nicsim::ulp::ip
