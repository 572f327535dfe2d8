// SPDX-License-Identifier: Apache-2.0
#include "ulp/ip/ip_interface.h"

#include <algorithm>
#include <cstring>

#include "abi/packet.h"
#include "abi/rdma.h"
#include "base/check.h"
#include "base/crc32.h"

namespace nicsim::ulp::ip {

IpInterface::IpInterface(hal::Port& port, hal::TaskHost& host, IpConfig config,
                         std::vector<hal::Peer> members)
    : port_(port),
      host_(host),
      config_(config),
      members_(std::move(members)),
      reassembler_(config.reassembly_timeout_ps, stats_) {
  const std::optional<uint32_t> address = AddressOf(port.self());
  NICSIM_CHECK(address.has_value(), "window %u has no IP address", port.self().window);
  address_ = *address;
  frame_bytes_ = std::min(port.max_payload(), config.frame_bytes);
  NICSIM_CHECK(frame_bytes_ >= kHeaderBytes + 8, "frames of %u bytes are too small for IP",
               frame_bytes_);
  port_.OnReceive(
      [this](const abi::RecvFrameHeader& h, const uint8_t* payload) { Receive(h, payload); });
}

IpInterface::~IpInterface() {
  port_.OnReceive(nullptr);
  for (uint32_t r : source_rcxts_) port_.ReleaseRcxt(r);
  for (uint32_t r : landing_rcxts_) port_.ReleaseRcxt(r);
}

Status IpInterface::EnableRdma() {
  if (rdma_) return Status();
  const uint32_t slots = std::max<uint32_t>(1, config_.rdma_slots);
  const uint64_t bytes = uint64_t{slots} * kRdmaSlotBytes;
  for (auto [vaddr, pvo] :
       {std::pair{&source_vaddr_, &source_pvo_}, std::pair{&landing_vaddr_, &landing_pvo_}}) {
    Result<uint64_t> area = host_.Map(bytes);
    if (!area.ok()) return Status::Error("IP RDMA slots: " + area.status().message());
    Result<driver::Registration> reg = host_.Register(*area, bytes);
    if (!reg.ok()) return Status::Error("IP RDMA slots: " + reg.status().message());
    *vaddr = *area;
    *pvo = reg->pvo;
  }
  for (uint32_t i = 0; i < slots; ++i) {
    Result<uint32_t> source = port_.AcquireRcxt();
    Result<uint32_t> landing = port_.AcquireRcxt();
    if (!source.ok() || !landing.ok()) return Status::Error("IP RDMA slots: no free rCxt");
    source_rcxts_.push_back(*source);
    landing_rcxts_.push_back(*landing);
  }
  sources_.assign(slots, SourceSlot{});
  landings_.assign(slots, LandingSlot{});
  rdma_ = true;
  return Status();
}

void IpInterface::After(uint64_t delay_ps, std::function<void()> fn) {
  host_.After(delay_ps, [alive = life_.watch(), fn = std::move(fn)] {
    if (alive.alive()) fn();
  });
}

Status IpInterface::Send(uint32_t dst, uint8_t protocol, const uint8_t* payload, uint32_t len) {
  if (len > kMaxPayloadBytes) {
    return Status::Error("IP datagram payload of " + std::to_string(len) + " bytes, more than " +
                         std::to_string(kMaxPayloadBytes));
  }
  std::vector<hal::Peer> to;
  const bool broadcast = IsBroadcast(dst);
  if (broadcast) {
    to = BroadcastTargets();
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
  ++stats_.datagrams_sent;
  ++(broadcast ? stats_.broadcast_sent : stats_.unicast_sent);
  stats_.bytes_sent += len;
  // Large unicast by RDMA: the receiver reads the whole datagram, one unfragmented packet.
  if (!broadcast && rdma_ && len > config_.rdma_threshold) {
    const std::vector<std::vector<uint8_t>> whole = Fragment(h, payload, len, kMaxDatagramBytes);
    if (OfferByRdma(to[0], whole[0])) return Status();
    ++stats_.rdma_no_slot;
  }
  const std::vector<std::vector<uint8_t>> packets = Fragment(h, payload, len, frame_bytes_);
  if (packets.size() > 1) ++stats_.fragmented_sent;
  for (const hal::Peer& peer : to) SendPackets(peer, packets);
  return Status();
}

std::vector<hal::Peer> IpInterface::BroadcastTargets() const {
  // The fabric copies a frame sent to the broadcast id to every adapter but the sender's, at
  // the same window number: one frame serves every member when each other member is such a
  // window (else one copy per member).
  const hal::Peer self = port_.self();
  bool fabric_reaches_all = true;
  std::vector<hal::Peer> others;
  for (const hal::Peer& m : members_) {
    if (m == self) continue;
    others.push_back(m);
    if (m.window != self.window || m.adapter == self.adapter) fabric_reaches_all = false;
  }
  if (fabric_reaches_all && others.size() > 1) {
    return {hal::Peer{abi::kBroadcastAdapter, self.window}};
  }
  return others;
}

void IpInterface::SendPackets(hal::Peer to, const std::vector<std::vector<uint8_t>>& packets) {
  for (const std::vector<uint8_t>& p : packets) {
    port_.Send(to, p.data(), static_cast<uint32_t>(p.size()), kIpUlpWord);
    ++stats_.frames_sent;
    if (to.adapter == abi::kBroadcastAdapter) ++stats_.broadcast_frames;
  }
}

bool IpInterface::OfferByRdma(hal::Peer to, const std::vector<uint8_t>& packet) {
  auto free =
      std::find_if(sources_.begin(), sources_.end(), [](const SourceSlot& s) { return !s.busy; });
  if (free == sources_.end()) return false;
  const auto slot = static_cast<uint32_t>(free - sources_.begin());
  SourceSlot& s = *free;
  const uint64_t at = uint64_t{slot} * kRdmaSlotBytes;
  if (!host_.Write(source_vaddr_ + at, packet.data(), packet.size())) return false;
  s.busy = true;
  ++s.generation;
  s.to = to;
  s.length = static_cast<uint32_t>(packet.size());
  const Offer offer{slot,     s.generation,     source_rcxts_[slot],
                    s.length, source_pvo_ + at, Crc32(0, packet.data(), packet.size()),
                    0};
  port_.Send(to, reinterpret_cast<const uint8_t*>(&offer), sizeof(offer), kIpOfferWord);
  ++stats_.frames_sent;
  ++stats_.rdma_offers;
  // The receiver answers within its read timeout; if the answer is lost, the slot is freed
  // after three (the datagram is then lost, as IP may lose it).
  const uint32_t generation = s.generation;
  After(3 * config_.reassembly_timeout_ps, [this, slot, generation] {
    if (sources_[slot].busy && sources_[slot].generation == generation) {
      ++stats_.rdma_source_expired;
      FreeSource(slot);
    }
  });
  return true;
}

void IpInterface::FreeSource(uint32_t slot) { sources_[slot].busy = false; }

void IpInterface::OnAnswer(const Answer& a) {
  if (a.slot >= sources_.size()) return;
  SourceSlot& s = sources_[a.slot];
  if (!s.busy || s.generation != a.generation) return;  // a late or second answer
  if (a.fallback != 0) {
    // Send the datagram again in fragments, from the slot's copy.
    std::vector<uint8_t> packet(s.length);
    if (host_.Read(source_vaddr_ + uint64_t{a.slot} * kRdmaSlotBytes, packet.data(), s.length)) {
      Header h;
      if (ReadHeader(packet.data(), packet.size(), &h) == HeaderError::kNone) {
        const std::vector<std::vector<uint8_t>> packets =
            Fragment(h, packet.data() + kHeaderBytes, s.length - kHeaderBytes, frame_bytes_);
        if (packets.size() > 1) ++stats_.fragmented_sent;
        ++stats_.rdma_fallbacks;
        SendPackets(s.to, packets);
      }
    }
  }
  FreeSource(a.slot);
}

void IpInterface::SendAnswer(hal::Peer to, const Offer& offer, bool fallback) {
  const Answer a{offer.slot, offer.generation, fallback ? 1u : 0u};
  port_.Send(to, reinterpret_cast<const uint8_t*>(&a), sizeof(a), kIpAnswerWord);
  ++stats_.frames_sent;
}

void IpInterface::OnOffer(hal::Peer from, const Offer& offer) {
  // A copy of an offer (fabric.duplicate), or an older one overtaken, is not read again: its
  // slot may hold another datagram by now.
  const std::pair<uint32_t, uint32_t> key{(uint32_t{from.adapter} << 16) | from.window, offer.slot};
  auto seen = offers_seen_.find(key);
  if (seen != offers_seen_.end() && !abi::TidBefore(seen->second, offer.generation)) {
    ++stats_.rdma_old_offers;
    return;
  }
  offers_seen_[key] = offer.generation;
  auto free = std::find_if(landings_.begin(), landings_.end(),
                           [](const LandingSlot& l) { return !l.busy; });
  if (!rdma_ || free == landings_.end() || offer.length < kHeaderBytes ||
      offer.length > kMaxDatagramBytes) {
    ++stats_.rdma_declined;
    SendAnswer(from, offer, true);
    return;
  }
  const auto slot = static_cast<uint32_t>(free - landings_.begin());
  LandingSlot& l = *free;
  l.busy = true;
  // A source rCxt is read by many receivers, a landing rCxt reads from many sources, and the
  // adapters refuse a tid older than the last one an rCxt saw: tids follow simulated time (in
  // ns), so whoever reads an rCxt next uses a later tid than the reader before.
  const auto now_ns = static_cast<uint32_t>(host_.NowPs() / 1000);
  next_tid_ = abi::TidBefore(next_tid_, now_ns) ? now_ns : next_tid_ + 1;
  l.tid = next_tid_;
  l.from = from;
  l.offer = offer;
  abi::RdmaRequest q{};
  q.local_rcxt = landing_rcxts_[slot];
  q.remote_rcxt = offer.rcxt;
  q.tid = l.tid;
  q.length = offer.length;
  q.local_pvo = landing_pvo_ + uint64_t{slot} * kRdmaSlotBytes;
  q.remote_pvo = offer.pvo;
  q.flags = abi::kReqNotifyInitiator;
  port_.Post(abi::SlotType::kRdmaRead, from, q, kIpUlpWord);
  ++stats_.rdma_reads;
  const uint32_t tid = l.tid;
  After(config_.reassembly_timeout_ps, [this, slot, tid] {
    LandingSlot& late = landings_[slot];
    if (!late.busy || late.tid != tid) return;
    // Part of the data may have been lost, leaving the rCxt receiving: stop it, so its late
    // packets are stale, and let the sender use the FIFOs instead.
    ++stats_.rdma_read_timeouts;
    abi::RdmaRequest cancel{};
    cancel.local_rcxt = landing_rcxts_[slot];
    port_.Post(abi::SlotType::kRcxtCancel, port_.self(), cancel, kIpUlpWord);
    late.busy = false;
    SendAnswer(late.from, late.offer, true);
  });
}

void IpInterface::OnCompletion(const abi::CompletionRecord& c) {
  if (c.status == static_cast<uint32_t>(abi::RdmaStatus::kCancelled)) {
    ++stats_.rdma_cancel_notices;  // a read this interface gave up (its datagram resent)
    return;
  }
  auto it = std::find(landing_rcxts_.begin(), landing_rcxts_.end(), c.rcxt);
  if (it == landing_rcxts_.end()) {
    ++stats_.rdma_stray;
    return;
  }
  const auto slot = static_cast<uint32_t>(it - landing_rcxts_.begin());
  LandingSlot& l = landings_[slot];
  if (!l.busy || l.tid != c.tid || c.status != static_cast<uint32_t>(abi::RdmaStatus::kOk) ||
      c.length != l.offer.length) {
    ++stats_.rdma_stray;
    return;
  }
  l.busy = false;
  ++stats_.rdma_landed;
  std::vector<uint8_t> packet(l.offer.length);
  const bool read =
      host_.Read(landing_vaddr_ + uint64_t{slot} * kRdmaSlotBytes, packet.data(), packet.size());
  const bool intact = read && Crc32(0, packet.data(), packet.size()) == l.offer.crc;
  if (read && !intact) ++stats_.drop_rdma_crc;
  // Done, or (the bytes are not the offered ones) send it again in fragments.
  SendAnswer(l.from, l.offer, !intact);
  if (intact) Accept(l.from, packet.data(), static_cast<uint32_t>(packet.size()));
}

void IpInterface::Receive(const abi::RecvFrameHeader& frame, const uint8_t* payload) {
  ++stats_.frames_received;
  const hal::Peer from{frame.src_adapter, frame.src_window};
  if (frame.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
    abi::CompletionRecord c{};
    std::memcpy(&c, payload, std::min<size_t>(sizeof(c), frame.len_bytes));
    OnCompletion(c);
    return;
  }
  if (frame.type != static_cast<uint8_t>(abi::PacketType::kFifo)) {
    ++stats_.drop_not_ip;
    return;
  }
  if (frame.ulp_word == kIpOfferWord && frame.len_bytes == sizeof(Offer)) {
    Offer offer{};
    std::memcpy(&offer, payload, sizeof(offer));
    OnOffer(from, offer);
    return;
  }
  if (frame.ulp_word == kIpAnswerWord && frame.len_bytes == sizeof(Answer)) {
    Answer a{};
    std::memcpy(&a, payload, sizeof(a));
    OnAnswer(a);
    return;
  }
  if (frame.ulp_word != kIpUlpWord) {
    ++stats_.drop_not_ip;
    return;
  }
  Accept(from, payload, frame.len_bytes);
}

void IpInterface::Accept(hal::Peer from, const uint8_t* packet, uint32_t len) {
  Header h;
  switch (ReadHeader(packet, len, &h)) {
    case HeaderError::kMalformed:
      ++stats_.drop_malformed;
      return;
    case HeaderError::kBadChecksum:
      ++stats_.drop_bad_checksum;
      return;
    case HeaderError::kNone:
      break;
  }
  if (AddressOf(from) != h.src) {
    ++stats_.drop_bad_source;
    return;
  }
  if (h.dst != address_ && !IsBroadcast(h.dst)) {
    ++stats_.drop_not_for_us;
    return;
  }
  std::optional<std::vector<uint8_t>> whole =
      reassembler_.Feed(host_.NowPs(), h, packet + kHeaderBytes, len - kHeaderBytes);
  ArmTimer();
  if (!whole) return;
  const auto payload_len = static_cast<uint32_t>(whole->size() - kHeaderBytes);
  ++stats_.datagrams_delivered;
  stats_.bytes_delivered += payload_len;
  Header out = h;
  out.more_fragments = false;
  out.offset_bytes = 0;
  out.total_length = static_cast<uint16_t>(whole->size());
  if (deliver_) deliver_(out, whole->data() + kHeaderBytes, payload_len);
}

void IpInterface::ArmTimer() {
  if (timer_armed_) return;
  const std::optional<uint64_t> due = reassembler_.NextDeadline();
  if (!due) return;
  timer_armed_ = true;
  const uint64_t now = host_.NowPs();
  After(*due > now ? *due - now : 0, [this] {
    timer_armed_ = false;
    reassembler_.Expire(host_.NowPs());
    ArmTimer();
  });
}

}  // namespace nicsim::ulp::ip
