// SPDX-License-Identifier: Apache-2.0
// The DPDK real-port backend on a net_ring link: two FuncAdapters exchange 100,000 messages
// byte-exact and exactly once, and bad frames injected on the wire are dropped by reason.
#include <gtest/gtest.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abi/limits.h"
#include "abi/packet.h"
#include "base/rng.h"
#include "firmware/counters.h"
#include "hw/common/frame_codec.h"
#include "hw/dpdk/dpdk_port.h"
#include "hw/dpdk/eal.h"
#include "hw/dpdk/ring_link.h"
#include "realport/port/node.h"
#include "sim/workloads/workload.h"
#include "tests/dpdk/checked_exchange.h"
#include "tests/support/test_seed.h"

namespace nicsim::hw::dpdk {
namespace {

using sim::PolledPort;
using sim::WireNode;

using nicsim::testing::TestSeed;

/** Bytes of the test's own pool's mbufs: room for frames well over the port's MTU. */
constexpr uint16_t kInjectRoomBytes = 4096;
/** Frames injected per batch: well under the ring size, so injection never fails. */
constexpr size_t kInjectBatch = 256;

/** Records what a port hands to its adapter. */
class RecordingSink final : public LinkSink {
 public:
  void Receive(Frame frame) override { frames.push_back(std::move(frame)); }
  std::vector<Frame> frames;
};

/** A nicsim frame with its CRC stamped: header for adapter `dest` window 0, `len` bytes. */
std::vector<uint8_t> NicsimFrame(uint16_t dest, uint32_t payload_bytes, uint32_t key,
                                 uint8_t type = static_cast<uint8_t>(abi::PacketType::kFifo),
                                 int64_t len_field = -1) {
  abi::WireHeader h{};
  h.dest_adapter = dest;
  h.src_adapter = dest == 1 ? 0 : 1;
  h.len_bytes = static_cast<uint16_t>(len_field < 0 ? payload_bytes : len_field);
  h.type = type;
  h.protection_key = key;
  std::vector<uint8_t> payload(payload_bytes);
  sim::FillPattern(payload.data(), payload_bytes, 42);
  return EncodeFrame(h, payload.data(), payload_bytes);
}

/** An Ethernet frame of `ether_type` around `inner`, from adapter 0 to adapter 1. */
std::vector<uint8_t> EthernetFrame(uint16_t ether_type, const std::vector<uint8_t>& inner) {
  std::vector<uint8_t> bytes(kEthernetHeaderBytes);
  const std::array<uint8_t, 6> dst = AdapterMac(1);
  const std::array<uint8_t, 6> src = AdapterMac(0);
  std::memcpy(bytes.data(), dst.data(), 6);
  std::memcpy(bytes.data() + 6, src.data(), 6);
  bytes[12] = static_cast<uint8_t>(ether_type >> 8);
  bytes[13] = static_cast<uint8_t>(ether_type & 0xFF);
  bytes.insert(bytes.end(), inner.begin(), inner.end());
  return bytes;
}

/** Starts the EAL on first use in this process (ctest runs every test in its own process). */
void StartEal() {
  const Status s = InitEal(kUnprivilegedEalArgs);
  ASSERT_TRUE(s.ok()) << s.message();
}

TEST(DpdkEalTest, LaterCallsReuseTheFirstOutcome) {
  StartEal();
  EXPECT_TRUE(EalReady());
  // A second start with other (even invalid) options does not touch the running EAL.
  const Status again = InitEal("--no-such-eal-option");
  EXPECT_TRUE(again.ok()) << again.message();
}

TEST(DpdkPortTest, RejectsMtuSmallerThanWireHeader) {
  StartEal();
  DpdkPortConfig config;
  config.mtu_bytes = sizeof(abi::WireHeader) - 1;
  Result<std::unique_ptr<RingLink>> link = RingLink::Create(config);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("mtu_bytes"), std::string::npos)
      << link.status().message();
}

TEST(DpdkPortTest, SendFramesEthernetAndStampsTheDeferredCrc) {
  StartEal();
  Result<std::unique_ptr<RingLink>> link = RingLink::Create();
  ASSERT_TRUE(link.ok()) << link.status().message();
  RingLink& l = **link;
  const unsigned pool_start = rte_mempool_avail_count(l.a().pool());

  abi::WireHeader h{};
  h.dest_adapter = 5;
  h.src_adapter = 3;
  h.len_bytes = 100;
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  std::vector<uint8_t> payload(100, 0xAB);
  Frame frame;
  frame.bytes = EncodeFrameUnstamped(h, payload.data(), 100);
  frame.src_adapter = 3;
  frame.dest_adapter = 5;
  frame.crc_deferred = true;
  l.a().Send(frame, 0);
  EXPECT_EQ(l.a().counters().tx_frames, 1u);

  // On the wire: Ethernet header, then the nicsim frame with a CRC that checks.
  void* raw = nullptr;
  ASSERT_EQ(rte_ring_dequeue(l.to_b(), &raw), 0);
  auto* m = static_cast<rte_mbuf*>(raw);
  ASSERT_EQ(m->pkt_len, kEthernetHeaderBytes + sizeof(abi::WireHeader) + 100);
  const auto* wire = rte_pktmbuf_mtod(m, const uint8_t*);
  const std::array<uint8_t, 6> dst = AdapterMac(5);
  const std::array<uint8_t, 6> src = AdapterMac(3);
  EXPECT_EQ(std::memcmp(wire, dst.data(), 6), 0);
  EXPECT_EQ(std::memcmp(wire + 6, src.data(), 6), 0);
  EXPECT_EQ(wire[0] & 0x03, 0x02) << "locally administered unicast";
  EXPECT_EQ(wire[12], 0x88);
  EXPECT_EQ(wire[13], 0xB5);
  EXPECT_TRUE(FrameCrcOk(wire + kEthernetHeaderBytes, m->pkt_len - kEthernetHeaderBytes));
  ASSERT_EQ(rte_ring_enqueue(l.to_b(), m), 0);

  RecordingSink sink;
  EXPECT_EQ(l.b().Poll(sink), 1u);
  ASSERT_EQ(sink.frames.size(), 1u);
  const Frame& got = sink.frames[0];
  EXPECT_EQ(got.src_adapter, 3);
  EXPECT_EQ(got.dest_adapter, 5);
  // The port checked the CRC: the frame goes on as one that checks by construction.
  EXPECT_TRUE(got.crc_deferred);
  std::vector<uint8_t> stamped = frame.bytes;
  StampCrc(stamped);
  EXPECT_EQ(got.bytes, stamped);
  EXPECT_EQ(l.b().counters().rx_frames, 1u);
  EXPECT_EQ(rte_mempool_avail_count(l.a().pool()), pool_start);
}

TEST(DpdkPortTest, AFullTransmitQueueHoldsItsBacklogInOrderAndDropsBeyondIt) {
  StartEal();
  DpdkPortConfig config;
  config.tx_retries = 2;
  config.tx_backlog = 2;
  Result<std::unique_ptr<RingLink>> link = RingLink::Create(config, /*ring_frames=*/4);
  ASSERT_TRUE(link.ok()) << link.status().message();
  RingLink& l = **link;
  const unsigned pool_start = rte_mempool_avail_count(l.a().pool());
  // Frame i carries i + 1 payload bytes: the order they arrive in is read from their sizes.
  for (uint32_t i = 0; i < 10; ++i) {
    Frame f;
    f.bytes = NicsimFrame(1, i + 1, 0);
    f.dest_adapter = 1;
    l.a().Send(std::move(f), 0);
  }
  // Too large for the wire: refused before it takes an mbuf.
  Frame giant;
  giant.bytes.resize(l.a().config().mtu_bytes + 1);
  l.a().Send(std::move(giant), 0);

  // The ring takes four; the port holds the next two; the last four find the backlog full.
  EXPECT_EQ(l.a().counters().tx_frames, 4u);
  EXPECT_EQ(l.a().held(), 2u);
  EXPECT_EQ(l.a().counters().drop(PortDrop::kTxRingFull), 4u);
  // Each Send that found the queue full tried it 1 + tx_retries times: frames 5 and 6 once
  // (held), frames 7..10 once each before being dropped.
  EXPECT_EQ(l.a().counters().tx_retries, 6u * config.tx_retries);
  EXPECT_EQ(l.a().counters().drop(PortDrop::kTxOverMtu), 1u);
  RecordingSink sink;
  EXPECT_EQ(l.b().Poll(sink), 4u);
  // The receiver drained the ring: the held frames leave with the sender's next flush.
  EXPECT_EQ(l.a().FlushTx(), 2u);
  EXPECT_EQ(l.a().held(), 0u);
  EXPECT_EQ(l.b().Poll(sink), 2u);
  ASSERT_EQ(sink.frames.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sink.frames[i].bytes.size(), sizeof(abi::WireHeader) + i + 1) << "frame " << i;
  }
  EXPECT_EQ(l.a().counters().tx_frames, 6u);
  EXPECT_EQ(rte_mempool_avail_count(l.a().pool()), pool_start);
}

TEST(DpdkPortTest, StoppingDropsWhatTheFullQueueStillHolds) {
  StartEal();
  DpdkPortConfig config;
  config.tx_retries = 0;
  Result<std::unique_ptr<RingLink>> link = RingLink::Create(config, /*ring_frames=*/2);
  ASSERT_TRUE(link.ok()) << link.status().message();
  RingLink& l = **link;
  for (uint32_t i = 0; i < 5; ++i) {
    Frame f;
    f.bytes = NicsimFrame(1, 8, 0);
    f.dest_adapter = 1;
    l.a().Send(std::move(f), 0);
  }
  EXPECT_EQ(l.a().held(), 3u);
  EXPECT_EQ(l.a().counters().drop(PortDrop::kTxRingFull), 0u);
  l.a().Stop();
  EXPECT_EQ(l.a().held(), 0u);
  EXPECT_EQ(l.a().counters().tx_frames, 2u);
  EXPECT_EQ(l.a().counters().drop(PortDrop::kTxRingFull), 3u);
}

TEST(DpdkPortTest, ABacklogShorterThanABurstIsRefused) {
  StartEal();
  DpdkPortConfig config;
  config.tx_burst = 32;
  config.tx_backlog = 16;
  Result<std::unique_ptr<RingLink>> link = RingLink::Create(config);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("tx_backlog 16 is smaller than tx_burst 32"),
            std::string::npos)
      << link.status().message();
}

/** Two adapters (ids 0 and 1) on the two ends of a ring link, with a pool for raw frames. */
class DpdkLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StartEal();
    Result<std::unique_ptr<RingLink>> link = RingLink::Create();
    ASSERT_TRUE(link.ok()) << link.status().message();
    link_ = std::move(*link);
    node0_ = std::make_unique<WireNode>(events_, 0, link_->a());
    node1_ = std::make_unique<WireNode>(events_, 1, link_->b());
    Status s = node0_->Open();
    ASSERT_TRUE(s.ok()) << s.message();
    s = node1_->Open();
    ASSERT_TRUE(s.ok()) << s.message();
    ports_ = {{&link_->a(), &node0_->adapter()}, {&link_->b(), &node1_->adapter()}};
    inject_pool_ =
        rte_pktmbuf_pool_create(("nicsim_inject_" + std::to_string(pool_sequence_++)).c_str(), 1023,
                                0, 0, RTE_PKTMBUF_HEADROOM + kInjectRoomBytes, SOCKET_ID_ANY);
    ASSERT_NE(inject_pool_, nullptr);
    // Opening windows is all MMIO and DMA: let it finish before counting anything.
    sim::Settle(events_, ports_);
    pool_start_ = {rte_mempool_avail_count(inject_pool_),
                   rte_mempool_avail_count(link_->a().pool()),
                   rte_mempool_avail_count(link_->b().pool())};
  }

  void TearDown() override {
    node0_.reset();
    node1_.reset();
    link_.reset();  // frees whatever is still on the rings, injected frames included
    if (inject_pool_ != nullptr) rte_mempool_free(inject_pool_);
  }

  /** Every mbuf of every pool is home again. */
  void ExpectPoolsFull() {
    EXPECT_EQ(rte_mempool_avail_count(inject_pool_), pool_start_[0]) << "inject pool";
    EXPECT_EQ(rte_mempool_avail_count(link_->a().pool()), pool_start_[1]) << "port a pool";
    EXPECT_EQ(rte_mempool_avail_count(link_->b().pool()), pool_start_[2]) << "port b pool";
  }

  /** An mbuf of the test's pool holding `bytes`. */
  rte_mbuf* Mbuf(const std::vector<uint8_t>& bytes) {
    rte_mbuf* m = rte_pktmbuf_alloc(inject_pool_);
    EXPECT_NE(m, nullptr);
    if (m == nullptr) return nullptr;
    char* data = rte_pktmbuf_append(m, static_cast<uint16_t>(bytes.size()));
    EXPECT_NE(data, nullptr) << bytes.size() << " bytes do not fit an inject mbuf";
    if (data != nullptr && !bytes.empty()) std::memcpy(data, bytes.data(), bytes.size());
    return m;
  }

  /** Puts a raw mbuf on the wire into port b (adapter 1), as if the peer sent it. */
  void InjectMbuf(rte_mbuf* m) {
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(rte_ring_enqueue(link_->to_b(), m), 0);
  }
  void Inject(const std::vector<uint8_t>& bytes) { InjectMbuf(Mbuf(bytes)); }
  void Settle() { sim::Settle(events_, ports_); }

  /** Every non-zero drop counter of both ports and both microcodes, by qualified name. */
  std::map<std::string, uint64_t> Drops() const {
    std::map<std::string, uint64_t> out;
    for (const DpdkPort* port : {&link_->a(), &link_->b()}) {
      const std::string side = port == &link_->a() ? "a" : "b";
      for (size_t r = 0; r < kPortDropNames.size(); ++r) {
        const uint64_t n = port->counters().drops[r];
        if (n > 0) out["port_" + side + "." + std::string(kPortDropNames[r])] = n;
      }
    }
    for (const WireNode* node : {node0_.get(), node1_.get()}) {
      const fw::Counters& c = const_cast<WireNode*>(node)->adapter().firmware_counters();
      for (size_t r = 0; r < fw::kDropReasonNames.size(); ++r) {
        if (c.drops[r] > 0) {
          out["fw" + std::to_string(node == node0_.get() ? 0 : 1) + "." +
              std::string(fw::kDropReasonNames[r])] = c.drops[r];
        }
      }
    }
    return out;
  }

  /** Nothing reached a receive FIFO: every bad frame was dropped. */
  void ExpectNothingDelivered() {
    EXPECT_EQ(node1_->adapter().firmware_counters().rx_packets, 0u);
    EXPECT_EQ(node1_->endpoint().received(), 0u);
  }

  uint32_t job_key() const { return node1_->config().job_key; }
  uint32_t mtu() const { return link_->b().config().mtu_bytes; }

  kernel::EventQueue events_;
  std::unique_ptr<RingLink> link_;
  std::unique_ptr<WireNode> node0_;
  std::unique_ptr<WireNode> node1_;
  std::vector<PolledPort> ports_;
  rte_mempool* inject_pool_ = nullptr;
  std::array<unsigned, 3> pool_start_{};
  static inline uint32_t pool_sequence_ = 0;
};

TEST_F(DpdkLinkTest, TwoAdaptersExchange100kMessagesExactlyOnce) {
  constexpr uint64_t kMessages = 100'000;
  const uint64_t seed = TestSeed();
  nicsim::testing::CheckedExchange exchange(node0_->endpoint(), node1_->endpoint(), kMessages,
                                            seed);
  exchange.Start();
  const Status run = sim::RunWithPorts(events_, ports_, [&] { return exchange.Finished(); });
  // Let everything still in flight land, so a late duplicate is caught too.
  Settle();
  ASSERT_TRUE(run.ok()) << run.message() << " (seed " << seed << ")";
  const sim::WorkloadResult& out = exchange.result();
  for (const std::string& e : out.errors) ADD_FAILURE() << e << " (seed " << seed << ")";
  EXPECT_EQ(out.error_count, 0u);
  EXPECT_EQ(exchange.Lost(), 0u);
  EXPECT_EQ(out.messages_sent, kMessages);
  EXPECT_EQ(out.messages_delivered, kMessages);
  // Every message crossed the real ports once, and nothing was dropped anywhere.
  const uint64_t quota = exchange.quota();
  EXPECT_EQ(link_->a().counters().tx_frames, quota);
  EXPECT_EQ(link_->b().counters().tx_frames, quota);
  EXPECT_EQ(link_->a().counters().rx_frames, quota);
  EXPECT_EQ(link_->b().counters().rx_frames, quota);
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{}));
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, DeliversAWellFormedInjectedFrame) {
  // The injection path itself delivers: the drops below are the frames' fault.
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(1, 100, job_key())));
  Settle();
  EXPECT_EQ(node1_->adapter().firmware_counters().rx_packets, 1u);
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{}));
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, DropsRuntsAtThePort) {
  for (size_t len : {0, 1, 6, 12, 13}) Inject(std::vector<uint8_t>(len, 0x88));
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"port_b.runt", 5}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, DropsFramesOverTheMtuAtThePort) {
  // One byte too many, and far too many; the largest legal frame still goes through.
  Inject(EthernetFrame(kNicsimEtherType, std::vector<uint8_t>(mtu() + 1, 0)));
  Inject(EthernetFrame(kNicsimEtherType, std::vector<uint8_t>(kInjectRoomBytes - 14, 0)));
  Inject(
      EthernetFrame(kNicsimEtherType, NicsimFrame(1, mtu() - sizeof(abi::WireHeader), job_key())));
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"port_b.over_mtu", 2}}));
  EXPECT_EQ(node1_->adapter().firmware_counters().rx_packets, 1u);
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, DropsWrongEtherTypeAtThePort) {
  const std::vector<uint8_t> good = NicsimFrame(1, 64, job_key());
  Inject(EthernetFrame(0x0800, good));  // IPv4
  Inject(EthernetFrame(0x86DD, good));  // IPv6
  Inject(EthernetFrame(0xB588, good));  // ours, byte-swapped
  // VLAN-tagged: the nicsim EtherType sits behind the tag, which the port does not parse.
  std::vector<uint8_t> tagged = {0x00, 0x07, 0x88, 0xB5};
  tagged.insert(tagged.end(), good.begin(), good.end());
  Inject(EthernetFrame(0x8100, tagged));
  Inject(EthernetFrame(0x0000, {}));  // header only
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"port_b.wrong_ethertype", 5}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, DropsMultiSegmentMbufsAtThePort) {
  // A valid frame split over two segments, and over three.
  const std::vector<uint8_t> frame =
      EthernetFrame(kNicsimEtherType, NicsimFrame(1, 300, job_key()));
  for (size_t parts : {2, 3}) {
    rte_mbuf* head = nullptr;
    const size_t step = frame.size() / parts;
    for (size_t p = 0; p < parts; ++p) {
      const size_t begin = p * step;
      const size_t end = p + 1 == parts ? frame.size() : begin + step;
      rte_mbuf* seg = Mbuf(std::vector<uint8_t>(frame.begin() + begin, frame.begin() + end));
      ASSERT_NE(seg, nullptr);
      if (head == nullptr) {
        head = seg;
      } else {
        ASSERT_EQ(rte_pktmbuf_chain(head, seg), 0);
      }
    }
    ASSERT_EQ(head->nb_segs, parts);
    ASSERT_EQ(head->pkt_len, frame.size());
    InjectMbuf(head);
  }
  // One segment whose packet length claims more than its data.
  rte_mbuf* liar = Mbuf(frame);
  ASSERT_NE(liar, nullptr);
  liar->pkt_len += 10;
  InjectMbuf(liar);
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"port_b.multi_segment", 3}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, PassesTruncatedHeadersToTheMicrocode) {
  // The Ethernet layer is fine; the nicsim header inside is cut short (or absent).
  const std::vector<uint8_t> good = NicsimFrame(1, 64, job_key());
  for (size_t len : {1, 20, 47}) {
    Inject(EthernetFrame(kNicsimEtherType, std::vector<uint8_t>(good.begin(), good.begin() + len)));
  }
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"fw1.truncated_header", 3}}));
  EXPECT_EQ(link_->b().counters().rx_frames, 3u);
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, CountsUnknownPacketTypeInTheMicrocode) {
  const auto first_unknown = static_cast<uint8_t>(abi::PacketType::kFirstUnknown);
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(1, 64, job_key(), first_unknown)));
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(1, 64, job_key(), 0xFF)));
  Inject(
      EthernetFrame(kNicsimEtherType,
                    NicsimFrame(1, 0, job_key(), static_cast<uint8_t>(abi::PacketType::kInvalid))));
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"fw1.unknown_type", 3}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, CountsLengthLongerThanThePayloadInTheMicrocode) {
  // The header claims more payload than the frame carries (the CRC covers what is there).
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(1, 50, job_key(), 1, /*len_field=*/100)));
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(1, 0, job_key(), 1, /*len_field=*/1)));
  Settle();
  EXPECT_EQ(Drops(), (std::map<std::string, uint64_t>{{"fw1.length_mismatch", 2}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

TEST_F(DpdkLinkTest, CountsCorruptedAndMisroutedFramesInTheMicrocode) {
  std::vector<uint8_t> corrupt = NicsimFrame(1, 200, job_key());
  corrupt[sizeof(abi::WireHeader) + 17] ^= 0x40;
  Inject(EthernetFrame(kNicsimEtherType, corrupt));
  Inject(EthernetFrame(kNicsimEtherType, NicsimFrame(7, 64, job_key())));
  Settle();
  EXPECT_EQ(Drops(),
            (std::map<std::string, uint64_t>{{"fw1.bad_crc", 1}, {"fw1.wrong_adapter", 1}}));
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

/** The counter a frame of random bytes must land in, by the port's and microcode's rules. */
std::string ExpectedDrop(const std::vector<uint8_t>& bytes, uint32_t mtu) {
  if (bytes.size() < kEthernetHeaderBytes) return "port_b.runt";
  const size_t inner = bytes.size() - kEthernetHeaderBytes;
  if (inner > mtu) return "port_b.over_mtu";
  if (bytes[12] != (kNicsimEtherType >> 8) || bytes[13] != (kNicsimEtherType & 0xFF)) {
    return "port_b.wrong_ethertype";
  }
  if (inner < sizeof(abi::WireHeader)) return "fw1.truncated_header";
  if (!FrameCrcOk(bytes.data() + kEthernetHeaderBytes, inner)) return "fw1.bad_crc";
  return "a random frame with a valid CRC (replay and look)";
}

TEST_F(DpdkLinkTest, SurvivesTenThousandFramesOfRandomBytes) {
  constexpr int kFrames = 10'000;
  const uint64_t seed = TestSeed();
  Rng rng(seed, "dpdk_random_bytes");
  std::map<std::string, uint64_t> expected;
  for (int i = 0; i < kFrames; ++i) {
    // Short, plausible and oversized lengths alike; half carry our EtherType so that random
    // bytes reach the microcode too.
    const uint64_t limits[] = {kEthernetHeaderBytes + sizeof(abi::WireHeader),
                               kEthernetHeaderBytes + mtu(), kInjectRoomBytes};
    std::vector<uint8_t> bytes(rng.Below(limits[rng.Below(3)] + 1));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
    if (bytes.size() >= kEthernetHeaderBytes && rng.Chance(0.5)) {
      bytes[12] = kNicsimEtherType >> 8;
      bytes[13] = kNicsimEtherType & 0xFF;
    }
    ++expected[ExpectedDrop(bytes, mtu())];
    Inject(bytes);
    if ((i + 1) % kInjectBatch == 0) Settle();
  }
  Settle();
  EXPECT_EQ(Drops(), expected) << "seed " << seed;
  // Every kind showed up, so the run exercised every check.
  EXPECT_EQ(expected.size(), 5u) << "seed " << seed;
  ExpectNothingDelivered();
  ExpectPoolsFull();
}

}  // namespace
}  // namespace nicsim::hw::dpdk
