// SPDX-License-Identifier: Apache-2.0
#include "ulp/ip/fragments.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"

namespace nicsim::ulp::ip {

uint32_t FragmentPayloadBytes(uint32_t frame_bytes) {
  NICSIM_CHECK(frame_bytes >= kHeaderBytes + 8, "a frame of %u bytes holds no fragment",
               frame_bytes);
  return (frame_bytes - kHeaderBytes) / 8 * 8;
}

std::vector<std::vector<uint8_t>> Fragment(Header h, const uint8_t* payload, uint32_t len,
                                           uint32_t frame_bytes) {
  NICSIM_CHECK(len <= kMaxPayloadBytes, "datagram payload %u too large", len);
  std::vector<std::vector<uint8_t>> out;
  const bool fits = len + kHeaderBytes <= frame_bytes;
  const uint32_t piece = fits ? len : FragmentPayloadBytes(frame_bytes);
  uint32_t at = 0;
  do {
    const uint32_t n = std::min(piece, len - at);
    h.offset_bytes = at;
    h.more_fragments = at + n < len;
    h.total_length = static_cast<uint16_t>(kHeaderBytes + n);
    std::vector<uint8_t> packet(kHeaderBytes + n);
    WriteHeader(h, packet.data());
    if (n > 0) std::memcpy(packet.data() + kHeaderBytes, payload + at, n);
    out.push_back(std::move(packet));
    at += n;
  } while (at < len);
  return out;
}

std::vector<uint8_t> Reassembler::Whole(const Header& first, const uint8_t* payload, uint32_t len) {
  Header h = first;
  h.more_fragments = false;
  h.offset_bytes = 0;
  h.total_length = static_cast<uint16_t>(kHeaderBytes + len);
  std::vector<uint8_t> out(kHeaderBytes + len);
  WriteHeader(h, out.data());
  if (len > 0) std::memcpy(out.data() + kHeaderBytes, payload, len);
  return out;
}

void Reassembler::Finish(const Key& key, uint64_t now_ps, bool delivered) {
  const uint64_t until = now_ps + timeout_ps_;
  finished_[key] = Finished{until, delivered};
  finished_order_.emplace_back(until, key);
}

void Reassembler::Abandon(const Key& key, uint64_t now_ps, uint64_t IpStats::*reason) {
  ++(stats_.*reason);
  partials_.erase(key);
  Finish(key, now_ps, false);
}

std::optional<std::vector<uint8_t>> Reassembler::FeedPacket(uint64_t now_ps, const uint8_t* packet,
                                                            uint32_t len) {
  Header h;
  switch (ReadHeader(packet, len, &h)) {
    case HeaderError::kMalformed:
      ++stats_.drop_malformed;
      return std::nullopt;
    case HeaderError::kBadChecksum:
      ++stats_.drop_bad_checksum;
      return std::nullopt;
    case HeaderError::kNone:
      break;
  }
  return Feed(now_ps, h, packet + kHeaderBytes, len - kHeaderBytes);
}

std::optional<std::vector<uint8_t>> Reassembler::Feed(uint64_t now_ps, const Header& h,
                                                      const uint8_t* payload, uint32_t len) {
  Expire(now_ps);
  const Key key{h.src, h.dst, h.protocol, h.id};
  if (auto done = finished_.find(key); done != finished_.end()) {
    ++(done->second.delivered ? stats_.drop_duplicate : stats_.drop_late);
    return std::nullopt;
  }
  if (h.offset_bytes == 0 && !h.more_fragments) {  // not fragmented
    Finish(key, now_ps, true);
    return Whole(h, payload, len);
  }
  // Every fragment but the last carries a positive multiple of 8 bytes.
  if (h.more_fragments && (len == 0 || len % 8 != 0)) {
    ++stats_.drop_malformed;
    return std::nullopt;
  }
  const uint32_t end = h.offset_bytes + len;
  auto it = partials_.find(key);
  if (end > kMaxPayloadBytes) {
    if (it != partials_.end()) {
      Abandon(key, now_ps, &IpStats::drop_too_big);
    } else {
      ++stats_.drop_too_big;
      Finish(key, now_ps, false);
    }
    return std::nullopt;
  }
  if (it == partials_.end()) {
    it = partials_.emplace(key, Partial{}).first;
    it->second.started_ps = now_ps;
    it->second.first = h;
    starts_.emplace_back(now_ps, key);
  }
  Partial& p = it->second;
  const bool inconsistent = (!h.more_fragments && ((p.end && *p.end != end) || p.high > end)) ||
                            (h.more_fragments && p.end && end > *p.end);
  if (inconsistent) {
    Abandon(key, now_ps, &IpStats::drop_inconsistent);
    return std::nullopt;
  }
  // Bytes that arrived before must arrive the same.
  const uint32_t begin = h.offset_bytes;
  std::vector<ByteRanges::Range> gaps = p.have.Missing(begin, end);
  uint64_t at = begin;
  auto differs = [&](uint64_t from, uint64_t to) {
    return to > from && std::memcmp(p.data.data() + from, payload + (from - begin), to - from) != 0;
  };
  for (const ByteRanges::Range& gap : gaps) {
    if (differs(at, gap.first)) {
      Abandon(key, now_ps, &IpStats::drop_inconsistent);
      return std::nullopt;
    }
    at = gap.second;
  }
  if (differs(at, end)) {
    Abandon(key, now_ps, &IpStats::drop_inconsistent);
    return std::nullopt;
  }
  if (!h.more_fragments) p.end = end;
  if (gaps.empty() && len > 0) {
    ++stats_.duplicate_fragments;
  } else {
    if (p.data.size() < end) p.data.resize(end);
    if (len > 0) std::memcpy(p.data.data() + begin, payload, len);
    p.have.Add(begin, end);
  }
  p.high = std::max(p.high, end);
  if (!p.end || p.have.bytes() != *p.end) return std::nullopt;
  std::vector<uint8_t> whole = Whole(p.first, p.data.data(), *p.end);
  partials_.erase(it);
  Finish(key, now_ps, true);
  ++stats_.reassembled;
  return whole;
}

void Reassembler::Expire(uint64_t now_ps) {
  while (!starts_.empty() && starts_.front().first + timeout_ps_ <= now_ps) {
    const auto [started, key] = starts_.front();
    starts_.pop_front();
    auto it = partials_.find(key);
    if (it != partials_.end() && it->second.started_ps == started) {
      Abandon(key, now_ps, &IpStats::drop_timeout);
    }
  }
  while (!finished_order_.empty() && finished_order_.front().first <= now_ps) {
    const auto [until, key] = finished_order_.front();
    finished_order_.pop_front();
    auto it = finished_.find(key);
    if (it != finished_.end() && it->second.until_ps == until) finished_.erase(it);
  }
}

std::optional<uint64_t> Reassembler::NextDeadline() const {
  for (const auto& [started, key] : starts_) {
    auto it = partials_.find(key);
    if (it != partials_.end() && it->second.started_ps == started) return started + timeout_ps_;
  }
  return std::nullopt;
}

}  // namespace nicsim::ulp::ip
