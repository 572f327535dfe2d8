// SPDX-License-Identifier: Apache-2.0
// The verbs port without a device: UD message framing (GRH space, link header, nicsim frame),
// link-layer drops by reason, two adapters exchanging messages through that framing, and the
// configuration and address checks.
#include "hw/verbs/verbs_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abi/packet.h"
#include "base/rng.h"
#include "firmware/counters.h"
#include "hw/common/frame_codec.h"
#include "kernel/event_queue.h"
#include "hw/verbs/verbs_config.h"
#include "realport/port/node.h"
#include "sim/workloads/workload.h"
#include "tests/support/test_seed.h"

namespace nicsim::hw::verbs {
namespace {

using nicsim::testing::TestSeed;

/** A nicsim frame with its CRC stamped, for adapter `dest` window 0. */
std::vector<uint8_t> NicsimFrame(uint16_t dest, uint32_t payload_bytes, uint32_t key) {
  abi::WireHeader h{};
  h.dest_adapter = dest;
  h.src_adapter = dest == 1 ? 0 : 1;
  h.len_bytes = static_cast<uint16_t>(payload_bytes);
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.protection_key = key;
  std::vector<uint8_t> payload(payload_bytes);
  sim::FillPattern(payload.data(), payload_bytes, 42);
  return EncodeFrame(h, payload.data(), payload_bytes);
}

/** What the HCA would put in a receive buffer: 40 bytes of GRH (garbage here), then `message`. */
std::vector<uint8_t> Received(const std::vector<uint8_t>& message) {
  std::vector<uint8_t> buffer(kGrhBytes + message.size(), 0x5A);
  std::copy(message.begin(), message.end(), buffer.begin() + kGrhBytes);
  return buffer;
}

/** A UD message carrying `inner` from adapter 0 to adapter 1. */
std::vector<uint8_t> Message(const std::vector<uint8_t>& inner, uint16_t dest = 1,
                             uint16_t src = 0) {
  Frame f;
  f.bytes = inner;
  f.dest_adapter = dest;
  f.src_adapter = src;
  std::vector<uint8_t> out(MessageBytes(static_cast<uint32_t>(inner.size())));
  EXPECT_EQ(EncodeMessage(f, out.data()), out.size());
  return out;
}

TEST(VerbsFrameTest, EncodesTheLinkHeaderBeforeTheFrame) {
  const std::vector<uint8_t> inner = NicsimFrame(0x0102, 100, 7);
  const std::vector<uint8_t> m = Message(inner, 0x0102, 0x0304);
  ASSERT_EQ(m.size(), kLinkHeaderBytes + inner.size());
  EXPECT_EQ(m[0], 0x88);  // protocol, big endian like an EtherType
  EXPECT_EQ(m[1], 0xB5);
  EXPECT_EQ(m[2], 0x02);  // destination adapter, little endian like abi/
  EXPECT_EQ(m[3], 0x01);
  EXPECT_EQ(m[4], 0x04);  // source adapter
  EXPECT_EQ(m[5], 0x03);
  EXPECT_EQ(m[6], 0);  // reserved
  EXPECT_EQ(m[7], 0);
  EXPECT_TRUE(std::equal(inner.begin(), inner.end(), m.begin() + kLinkHeaderBytes));
}

TEST(VerbsFrameTest, DecodesWhatWasEncodedSkippingTheGrh) {
  const std::vector<uint8_t> inner = NicsimFrame(1, 300, 7);
  const std::vector<uint8_t> buffer = Received(Message(inner, 1, 9));
  VerbsPortCounters counters;
  Frame frame;
  frame.crc_deferred = true;
  ASSERT_TRUE(DecodeMessage(buffer.data(), static_cast<uint32_t>(buffer.size()), kDefaultMtuBytes,
                            &frame, &counters));
  EXPECT_EQ(frame.bytes, inner);
  EXPECT_EQ(frame.dest_adapter, 1);
  EXPECT_EQ(frame.src_adapter, 9);
  EXPECT_FALSE(frame.crc_deferred) << "frames from a real link are always checked";
  EXPECT_EQ(counters.rx_frames, 1u);
  EXPECT_EQ(counters.rx_bytes, inner.size());
  EXPECT_EQ(counters.total_drops(), 0u);
}

TEST(VerbsFrameTest, DropsRunts) {
  VerbsPortCounters counters;
  Frame frame;
  // Nothing, GRH space only, and a link header one byte short.
  for (uint32_t len : {0u, kGrhBytes, kGrhBytes + kLinkHeaderBytes - 1}) {
    std::vector<uint8_t> buffer(kGrhBytes + kLinkHeaderBytes, 0);
    EXPECT_FALSE(DecodeMessage(buffer.data(), len, kDefaultMtuBytes, &frame, &counters)) << len;
  }
  EXPECT_EQ(counters.drop(VerbsPortDrop::kRunt), 3u);
  EXPECT_EQ(counters.total_drops(), 3u);
  EXPECT_EQ(counters.rx_frames, 0u);
}

TEST(VerbsFrameTest, DropsFramesOverTheMtu) {
  constexpr uint32_t kMtu = 200;
  VerbsPortCounters counters;
  Frame frame;
  const std::vector<uint8_t> over = Received(Message(std::vector<uint8_t>(kMtu + 1, 0)));
  EXPECT_FALSE(
      DecodeMessage(over.data(), static_cast<uint32_t>(over.size()), kMtu, &frame, &counters));
  // The largest legal frame passes.
  const std::vector<uint8_t> fits = Received(Message(NicsimFrame(1, kMtu - 48, 7)));
  EXPECT_TRUE(
      DecodeMessage(fits.data(), static_cast<uint32_t>(fits.size()), kMtu, &frame, &counters));
  EXPECT_EQ(counters.drop(VerbsPortDrop::kOverMtu), 1u);
  EXPECT_EQ(counters.total_drops(), 1u);
}

TEST(VerbsFrameTest, DropsWrongProtocol) {
  VerbsPortCounters counters;
  Frame frame;
  const std::vector<uint8_t> good = Message(NicsimFrame(1, 64, 7));
  for (std::array<uint8_t, 2> protocol :
       {std::array<uint8_t, 2>{0x08, 0x00}, {0xB5, 0x88}, {0x00, 0x00}}) {
    std::vector<uint8_t> m = good;
    m[0] = protocol[0];
    m[1] = protocol[1];
    const std::vector<uint8_t> buffer = Received(m);
    EXPECT_FALSE(DecodeMessage(buffer.data(), static_cast<uint32_t>(buffer.size()),
                               kDefaultMtuBytes, &frame, &counters));
  }
  EXPECT_EQ(counters.drop(VerbsPortDrop::kWrongProtocol), 3u);
  EXPECT_EQ(counters.total_drops(), 3u);
}

TEST(VerbsFrameTest, PassesTruncatedHeadersOnToTheMicrocode) {
  VerbsPortCounters counters;
  const std::vector<uint8_t> good = NicsimFrame(1, 64, 7);
  for (size_t len : {0, 1, 47}) {
    Frame frame;
    const std::vector<uint8_t> buffer =
        Received(Message(std::vector<uint8_t>(good.begin(), good.begin() + len)));
    ASSERT_TRUE(DecodeMessage(buffer.data(), static_cast<uint32_t>(buffer.size()), kDefaultMtuBytes,
                              &frame, &counters));
    EXPECT_EQ(frame.bytes.size(), len);
  }
  EXPECT_EQ(counters.total_drops(), 0u);
}

TEST(VerbsFrameTest, DropNamesFollowTheEnum) {
  EXPECT_EQ(ToString(VerbsPortDrop::kRunt), "runt");
  EXPECT_EQ(ToString(VerbsPortDrop::kOverMtu), "over_mtu");
  EXPECT_EQ(ToString(VerbsPortDrop::kWrongProtocol), "wrong_protocol");
  EXPECT_EQ(ToString(VerbsPortDrop::kTxPortStopped), "tx_port_stopped");
  EXPECT_EQ(kVerbsPortDropNames.back(), "tx_port_stopped");
}

/**
 * A UD "wire" without a device: Send encodes a message into a receive buffer (GRH space
 * first) queued for the other side, Poll decodes the buffers like VerbsPort::Poll. What the
 * HCA does (address handles, completions) is left out; the framing is the real one.
 */
class FakeUdPort final : public FabricLink {
 public:
  explicit FakeUdPort(uint32_t mtu_bytes = kDefaultMtuBytes) : mtu_bytes_(mtu_bytes) {}
  void Connect(FakeUdPort* peer) { peer_ = peer; }

  void Send(Frame frame, uint64_t /*depart_ps*/) override {
    if (frame.crc_deferred) {
      StampCrc(frame.bytes);
      frame.crc_deferred = false;
    }
    std::vector<uint8_t> buffer(kGrhBytes +
                                MessageBytes(static_cast<uint32_t>(frame.bytes.size())));
    EncodeMessage(frame, buffer.data() + kGrhBytes);
    ++counters_.tx_frames;
    peer_->Deliver(std::move(buffer));
  }
  /** Puts raw bytes (GRH space included) on this port's receive queue. */
  void Deliver(std::vector<uint8_t> buffer) { queue_.push_back(std::move(buffer)); }

  uint32_t Poll(LinkSink& sink) {
    uint32_t n = 0;
    while (!queue_.empty() && n < 32) {
      std::vector<uint8_t> buffer = std::move(queue_.front());
      queue_.pop_front();
      ++n;
      Frame frame;
      if (DecodeMessage(buffer.data(), static_cast<uint32_t>(buffer.size()), mtu_bytes_, &frame,
                        &counters_)) {
        sink.Receive(std::move(frame));
      }
    }
    return n;
  }
  const VerbsPortCounters& counters() const { return counters_; }
  uint32_t mtu_bytes() const { return mtu_bytes_; }

 private:
  uint32_t mtu_bytes_;
  FakeUdPort* peer_ = nullptr;
  std::deque<std::vector<uint8_t>> queue_;
  VerbsPortCounters counters_;
};

/** Two adapters (0 and 1) on the two ends of a fake UD wire. */
class VerbsFramingLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_.Connect(&b_);
    b_.Connect(&a_);
    node0_ = std::make_unique<sim::WireNode>(events_, 0, a_);
    node1_ = std::make_unique<sim::WireNode>(events_, 1, b_);
    ASSERT_TRUE(node0_->Open().ok());
    ASSERT_TRUE(node1_->Open().ok());
    ports_ = {sim::PolledPort(&a_, &node0_->adapter()), sim::PolledPort(&b_, &node1_->adapter())};
    sim::Settle(events_, ports_);
  }
  void TearDown() override {
    node0_.reset();
    node1_.reset();
  }

  /** Every non-zero drop counter of port b and adapter 1, by qualified name. */
  std::map<std::string, uint64_t> Drops() const {
    std::map<std::string, uint64_t> out;
    for (size_t r = 0; r < kVerbsPortDropNames.size(); ++r) {
      if (b_.counters().drops[r] > 0) {
        out["port_b." + std::string(kVerbsPortDropNames[r])] = b_.counters().drops[r];
      }
    }
    const fw::Counters& c = node1_->adapter().firmware_counters();
    for (size_t r = 0; r < fw::kDropReasonNames.size(); ++r) {
      if (c.drops[r] > 0) out["fw1." + std::string(fw::kDropReasonNames[r])] = c.drops[r];
    }
    return out;
  }

  kernel::EventQueue events_;
  FakeUdPort a_;
  FakeUdPort b_;
  std::unique_ptr<sim::WireNode> node0_;
  std::unique_ptr<sim::WireNode> node1_;
  std::vector<sim::PolledPort> ports_;
};

TEST_F(VerbsFramingLinkTest, TwoAdaptersExchange10kMessagesExactlyOnce) {
  constexpr uint64_t kMessages = 10'000;
  const uint64_t seed = TestSeed();
  sim::WindowProcess* eps[2] = {&node0_->endpoint(), &node1_->endpoint()};
  const uint32_t max_payload = eps[0]->max_payload();
  Rng rngs[2] = {Rng(seed, "verbs_exchange/0"), Rng(seed, "verbs_exchange/1")};
  std::vector<uint16_t> sizes[2];
  std::vector<uint8_t> arrivals[2];
  std::vector<uint8_t> buf(max_payload);
  uint64_t delivered = 0;
  uint64_t errors = 0;
  auto pump = [&](size_t src) {
    while (sizes[src].size() < kMessages / 2 && eps[src]->backlog() == 0) {
      const auto size = static_cast<uint32_t>(rngs[src].Between(0, max_payload));
      const auto seq = static_cast<uint32_t>(sizes[src].size());
      sizes[src].push_back(static_cast<uint16_t>(size));
      arrivals[src].push_back(0);
      sim::FillPattern(buf.data(), size, (uint64_t{src} << 32) | seq);
      eps[src]->Send(eps[1 - src]->addr(), buf.data(), size, seq);
    }
  };
  for (size_t i = 0; i < 2; ++i) {
    eps[i]->OnSendable([&pump, i] { pump(i); });
    eps[i]->OnReceive([&, i](const hal::RecvPacket& p) {
      const size_t src = 1 - i;
      const uint32_t seq = p.header.ulp_word;
      if (seq >= sizes[src].size() || p.header.len_bytes != sizes[src][seq] ||
          !sim::CheckPattern(p.payload, p.header.len_bytes, (uint64_t{src} << 32) | seq) ||
          arrivals[src][seq]++ > 0) {
        ++errors;
        return;
      }
      ++delivered;
    });
  }
  pump(0);
  pump(1);
  const Status run =
      sim::RunWithPorts(events_, ports_, [&] { return delivered + errors >= kMessages; });
  sim::Settle(events_, ports_);
  for (sim::WindowProcess* ep : eps) {
    ep->OnSendable(nullptr);
    ep->OnReceive(nullptr);
  }
  ASSERT_TRUE(run.ok()) << run.message() << " (seed " << seed << ")";
  EXPECT_EQ(errors, 0u) << "seed " << seed;
  EXPECT_EQ(delivered, kMessages);
  EXPECT_EQ(a_.counters().rx_frames, kMessages / 2);
  EXPECT_EQ(b_.counters().rx_frames, kMessages / 2);
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{}));
}

/** The counter a buffer of random bytes must land in, by the port's and microcode's rules. */
std::string ExpectedDrop(const std::vector<uint8_t>& buffer, uint32_t mtu) {
  if (buffer.size() < kGrhBytes + kLinkHeaderBytes) return "port_b.runt";
  const size_t inner = buffer.size() - kGrhBytes - kLinkHeaderBytes;
  if (inner > mtu) return "port_b.over_mtu";
  if (buffer[kGrhBytes] != 0x88 || buffer[kGrhBytes + 1] != 0xB5) return "port_b.wrong_protocol";
  if (inner < sizeof(abi::WireHeader)) return "fw1.truncated_header";
  if (!FrameCrcOk(buffer.data() + kGrhBytes + kLinkHeaderBytes, inner)) return "fw1.bad_crc";
  return "a random frame with a valid CRC (replay and look)";
}

TEST_F(VerbsFramingLinkTest, SurvivesTenThousandBuffersOfRandomBytes) {
  constexpr int kBuffers = 10'000;
  const uint64_t seed = TestSeed();
  Rng rng(seed, "verbs_random_bytes");
  std::map<std::string, uint64_t> expected;
  const uint32_t mtu = b_.mtu_bytes();
  for (int i = 0; i < kBuffers; ++i) {
    const uint64_t limits[] = {kGrhBytes + kLinkHeaderBytes + sizeof(abi::WireHeader),
                               kGrhBytes + kLinkHeaderBytes + mtu, kMaxPathMtuBytes + kGrhBytes};
    std::vector<uint8_t> buffer(rng.Below(limits[rng.Below(3)] + 1));
    for (uint8_t& b : buffer) b = static_cast<uint8_t>(rng.Next());
    // Half carry our protocol so that random bytes reach the microcode too.
    if (buffer.size() >= kGrhBytes + 2 && rng.Chance(0.5)) {
      buffer[kGrhBytes] = 0x88;
      buffer[kGrhBytes + 1] = 0xB5;
    }
    ++expected[ExpectedDrop(buffer, mtu)];
    b_.Deliver(std::move(buffer));
    if ((i + 1) % 256 == 0) sim::Settle(events_, ports_);
  }
  sim::Settle(events_, ports_);
  EXPECT_EQ(Drops(), expected) << "seed " << seed;
  EXPECT_EQ(expected.size(), 5u) << "seed " << seed << ": every check exercised";
  EXPECT_EQ(node1_->endpoint().received(), 0u);
}

TEST(VerbsConfigTest, ParsesLidAndGidAddresses) {
  Result<VerbsAddress> lid = ParseAddress("3:0x1a2");
  ASSERT_TRUE(lid.ok()) << lid.status().message();
  EXPECT_FALSE(lid->has_gid);
  EXPECT_EQ(lid->lid, 3);
  EXPECT_EQ(lid->qpn, 0x1a2u);
  EXPECT_EQ(FormatAddress(*lid), "3:0x1a2");

  Result<VerbsAddress> gid = ParseAddress("[fe80::21e:67ff:fe0c:1234]:418");
  ASSERT_TRUE(gid.ok()) << gid.status().message();
  EXPECT_TRUE(gid->has_gid);
  EXPECT_EQ(gid->gid[0], 0xfe);
  EXPECT_EQ(gid->gid[1], 0x80);
  EXPECT_EQ(gid->gid[15], 0x34);
  EXPECT_EQ(gid->qpn, 418u);
  Result<VerbsAddress> again = ParseAddress(FormatAddress(*gid));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *gid);
  // RoCE v2 GIDs are IPv4-mapped.
  Result<VerbsAddress> v4 = ParseAddress("[::ffff:10.0.0.1]:0x20");
  ASSERT_TRUE(v4.ok()) << v4.status().message();
  EXPECT_EQ(v4->gid[10], 0xff);
  EXPECT_EQ(v4->gid[15], 1);
}

TEST(VerbsConfigTest, RejectsBadAddressesNamingTheProblem) {
  const std::map<std::string, std::string> cases = {
      {"", "no ':'"},
      {"3", "no ':'"},
      {"3:", "QP number"},
      {"3:x", "QP number"},
      {"3:0x1000000", "QP number"},
      {"3:1", "special QP"},
      {"0:0x10", "unicast LID"},
      {"0xc000:0x10", "unicast LID"},
      {"70000:0x10", "LID"},
      {"-1:0x10", "LID"},
      {"[fe80::1:0x10", "closing ']'"},
      {"[not-a-gid]:0x10", "is not a GID"},
  };
  for (const auto& [text, why] : cases) {
    Result<VerbsAddress> a = ParseAddress(text);
    ASSERT_FALSE(a.ok()) << "'" << text << "' parsed";
    EXPECT_NE(a.status().message().find(why), std::string::npos)
        << "'" << text << "': " << a.status().message();
  }
}

TEST(VerbsConfigTest, ParsesDeviceAndPort) {
  Result<VerbsDevicePort> both = ParseDevicePort("mlx5_0:2");
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->device, "mlx5_0");
  EXPECT_EQ(both->port_num, 2);
  Result<VerbsDevicePort> device_only = ParseDevicePort("rxe0");
  ASSERT_TRUE(device_only.ok()) << device_only.status().message();
  EXPECT_EQ(device_only->device, "rxe0");
  EXPECT_EQ(device_only->port_num, 1);
  for (const char* bad : {"", ":1", "mlx5_0:0", "mlx5_0:256", "mlx5_0:x"}) {
    EXPECT_FALSE(ParseDevicePort(bad).ok()) << bad;
  }
}

TEST(VerbsConfigTest, DefaultsAreValid) {
  const Status s = ValidateConfig(VerbsPortConfig{});
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(kDefaultQkey & 0x8000'0000u, 0u);
  EXPECT_LE(MessageBytes(kDefaultMtuBytes), kMaxPathMtuBytes);
}

TEST(VerbsConfigTest, RejectsEachBadFieldByName) {
  VerbsPeer lid_peer{2, {}};
  lid_peer.address.lid = 5;
  lid_peer.address.qpn = 0x40;
  VerbsPeer gid_peer = lid_peer;
  gid_peer.address.has_gid = true;
  const std::vector<std::pair<std::function<void(VerbsPortConfig&)>, std::string>> cases = {
      {[](VerbsPortConfig& c) { c.port_num = 0; }, "port_num"},
      {[](VerbsPortConfig& c) { c.gid_index = -2; }, "gid_index"},
      {[](VerbsPortConfig& c) { c.gid_index = 256; }, "gid_index"},
      {[](VerbsPortConfig& c) { c.qkey = 0x8000'0001; }, "qkey"},
      {[](VerbsPortConfig& c) { c.recv_buffers = 0; }, "recv_buffers"},
      {[](VerbsPortConfig& c) { c.send_buffers = 0; }, "send_buffers"},
      {[](VerbsPortConfig& c) { c.mtu_bytes = 47; }, "mtu_bytes"},
      {[](VerbsPortConfig& c) { c.mtu_bytes = kMaxPathMtuBytes; }, "mtu_bytes"},
      {[](VerbsPortConfig& c) { c.poll_batch = 0; }, "poll_batch"},
      {[](VerbsPortConfig& c) { c.poll_batch = kMaxPollBatch + 1; }, "poll_batch"},
      {[&](VerbsPortConfig& c) {
         c.peers = {lid_peer, lid_peer};
       },
       "listed twice"},
      {[&](VerbsPortConfig& c) {
         c.gid_index = 0;
         c.peers = {lid_peer};
       },
       "addressed by LID"},
      {[&](VerbsPortConfig& c) { c.peers = {gid_peer}; }, "addressed by GID"},
      {[&](VerbsPortConfig& c) {
         VerbsPeer p = lid_peer;
         p.address.qpn = 1;
         c.peers = {p};
       },
       "special QP"},
  };
  for (const auto& [mutate, name] : cases) {
    VerbsPortConfig c;
    mutate(c);
    const Status s = ValidateConfig(c);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  VerbsPortConfig good;
  good.peers = {lid_peer};
  EXPECT_TRUE(ValidateConfig(good).ok());
  good.gid_index = 1;
  good.peers = {gid_peer};
  EXPECT_TRUE(ValidateConfig(good).ok());
}

}  // namespace
}  // namespace nicsim::hw::verbs
