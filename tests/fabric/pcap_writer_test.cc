// SPDX-License-Identifier: Apache-2.0
// Tests for the pcapng writer: the exact block layout read back byte by byte, errors that
// name the path, failed writes that report instead of aborting, and the fabric's capture point.
#include "sim/fabric/pcap_writer.h"

#include <gtest/gtest.h>

#include "tests/support/process.h"
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "kernel/event_queue.h"
#include "sim/fabric/switch_fabric.h"

namespace nicsim::sim {
namespace {

namespace fs = std::filesystem;

uint16_t U16At(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint16_t>(b[at] | (b[at + 1] << 8));
}
uint32_t U32At(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t{b[at]} | (uint32_t{b[at + 1]} << 8) | (uint32_t{b[at + 2]} << 16) |
         (uint32_t{b[at + 3]} << 24);
}
uint64_t U64At(const std::vector<uint8_t>& b, size_t at) {
  return uint64_t{U32At(b, at)} | (uint64_t{U32At(b, at + 4)} << 32);
}

/** One pcapng block: its type and the bytes between the two length fields. */
struct Block {
  uint32_t type = 0;
  std::vector<uint8_t> body;
};

/**
 * Splits a pcapng file into blocks, checking the framing every block must have: a length
 * that is a multiple of 4, at least 12, within the file, and repeated at the block's end.
 */
std::vector<Block> ParseBlocks(const std::vector<uint8_t>& file) {
  std::vector<Block> blocks;
  size_t at = 0;
  while (at < file.size()) {
    EXPECT_LE(at + 12, file.size()) << "block header at " << at;
    if (at + 12 > file.size()) break;
    const uint32_t len = U32At(file, at + 4);
    EXPECT_EQ(len % 4, 0u) << "block at " << at;
    EXPECT_GE(len, 12u) << "block at " << at;
    EXPECT_LE(at + len, file.size()) << "block at " << at;
    if (len < 12 || at + len > file.size()) break;
    EXPECT_EQ(U32At(file, at + len - 4), len) << "trailing length of block at " << at;
    Block b;
    b.type = U32At(file, at);
    b.body.assign(file.begin() + static_cast<long>(at) + 8,
                  file.begin() + static_cast<long>(at + len) - 4);
    blocks.push_back(std::move(b));
    at += len;
  }
  return blocks;
}

/** Options of a block body starting at `at`: code -> value bytes; stops at opt_endofopt. */
std::vector<std::pair<uint16_t, std::vector<uint8_t>>> ParseOptions(const std::vector<uint8_t>& b,
                                                                    size_t at) {
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> options;
  while (at + 4 <= b.size()) {
    const uint16_t code = U16At(b, at);
    const uint16_t len = U16At(b, at + 2);
    if (code == 0) {
      EXPECT_EQ(len, 0u);
      EXPECT_EQ(at + 4, b.size()) << "opt_endofopt must end the options";
      return options;
    }
    EXPECT_LE(at + 4 + len, b.size());
    if (at + 4 + len > b.size()) break;
    options.emplace_back(code, std::vector<uint8_t>(b.begin() + static_cast<long>(at) + 4,
                                                    b.begin() + static_cast<long>(at) + 4 + len));
    at += 4 + ((len + 3u) & ~3u);
  }
  ADD_FAILURE() << "options without opt_endofopt";
  return options;
}

std::vector<uint8_t> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** A captured packet: its timestamp in nanoseconds and its bytes. */
struct Packet {
  uint64_t time_ns = 0;
  std::vector<uint8_t> bytes;
  bool operator==(const Packet& o) const { return time_ns == o.time_ns && bytes == o.bytes; }
};

/** The Enhanced Packet Blocks of a file written by PcapWriter (interface 0, ns timestamps). */
std::vector<Packet> ReadPackets(const fs::path& path) {
  std::vector<Packet> packets;
  for (const Block& b : ParseBlocks(ReadBytes(path))) {
    if (b.type != PcapWriter::kEnhancedPacketBlock) continue;
    EXPECT_EQ(U32At(b.body, 0), 0u) << "interface id";
    Packet p;
    p.time_ns = (uint64_t{U32At(b.body, 4)} << 32) | U32At(b.body, 8);
    const uint32_t len = U32At(b.body, 12);
    EXPECT_LE(20 + len, b.body.size());
    p.bytes.assign(b.body.begin() + 20, b.body.begin() + 20 + len);
    packets.push_back(std::move(p));
  }
  return packets;
}

class PcapWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()) << std::strerror(errno); }
  nicsim::testing::ScratchDir scratch_{"nicsim_pcap"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(PcapWriterTest, WritesSectionHeaderInterfaceAndEnhancedPacketBlocks) {
  const fs::path path = dir_ / "out.pcapng";
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open(path.string());
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::vector<uint8_t> aligned(48);
  for (size_t i = 0; i < aligned.size(); ++i) aligned[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> odd(49);
  for (size_t i = 0; i < odd.size(); ++i) odd[i] = static_cast<uint8_t>(i + 1);
  // A time above 2^32 ns checks the high word; 999 ps below a whole ns is truncated.
  const uint64_t late_ps = ((uint64_t{3} << 32) + 1'234'567) * 1000 + 999;
  EXPECT_TRUE((*w)->Write(1'350'000, aligned));
  EXPECT_TRUE((*w)->Write(late_ps, odd));
  EXPECT_TRUE((*w)->Write(late_ps + 1, nullptr, 0));
  EXPECT_EQ((*w)->packets(), 3u);
  EXPECT_TRUE((*w)->Close());

  const std::vector<uint8_t> file = ReadBytes(path);
  // The file starts with the SHB type and, at byte 8, the byte-order magic as stored.
  ASSERT_GE(file.size(), 12u);
  EXPECT_EQ(std::vector<uint8_t>(file.begin(), file.begin() + 4),
            (std::vector<uint8_t>{0x0A, 0x0D, 0x0D, 0x0A}));
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + 8, file.begin() + 12),
            (std::vector<uint8_t>{0x4D, 0x3C, 0x2B, 0x1A}));
  const std::vector<Block> blocks = ParseBlocks(file);
  ASSERT_EQ(blocks.size(), 5u);

  const Block& shb = blocks[0];
  EXPECT_EQ(shb.type, 0x0A0D0D0Au);
  EXPECT_EQ(U32At(shb.body, 0), 0x1A2B3C4Du);
  EXPECT_EQ(U16At(shb.body, 4), 1u) << "major version";
  EXPECT_EQ(U16At(shb.body, 6), 0u) << "minor version";
  EXPECT_EQ(U64At(shb.body, 8), ~uint64_t{0}) << "section length unspecified";
  const auto shb_opts = ParseOptions(shb.body, 16);
  ASSERT_EQ(shb_opts.size(), 1u);
  EXPECT_EQ(shb_opts[0].first, 4u) << "shb_userappl";
  EXPECT_EQ(std::string(shb_opts[0].second.begin(), shb_opts[0].second.end()), "nicsim");

  const Block& idb = blocks[1];
  EXPECT_EQ(idb.type, 1u);
  EXPECT_EQ(U16At(idb.body, 0), 147u) << "LINKTYPE_USER0";
  EXPECT_EQ(U16At(idb.body, 2), 0u) << "reserved";
  EXPECT_EQ(U32At(idb.body, 4), 0u) << "snap length: unlimited";
  bool saw_tsresol = false;
  bool saw_name = false;
  for (const auto& [code, value] : ParseOptions(idb.body, 8)) {
    if (code == 9) {
      saw_tsresol = true;
      EXPECT_EQ(value, std::vector<uint8_t>{9}) << "if_tsresol: 10^-9 s";
    }
    if (code == 2) {
      saw_name = true;
      EXPECT_EQ(std::string(value.begin(), value.end()), "fabric");
    }
  }
  EXPECT_TRUE(saw_tsresol);
  EXPECT_TRUE(saw_name);

  // EPB body: interface, ts high, ts low, captured, original, data padded to 4, no options.
  const Block& first = blocks[2];
  EXPECT_EQ(first.type, 6u);
  EXPECT_EQ(first.body.size(), 20u + 48u);
  EXPECT_EQ(U32At(first.body, 0), 0u);
  EXPECT_EQ(U32At(first.body, 4), 0u);
  EXPECT_EQ(U32At(first.body, 8), 1'350u) << "1350000 ps in ns";
  EXPECT_EQ(U32At(first.body, 12), 48u);
  EXPECT_EQ(U32At(first.body, 16), 48u);
  EXPECT_EQ(std::vector<uint8_t>(first.body.begin() + 20, first.body.end()), aligned);

  const Block& second = blocks[3];
  EXPECT_EQ(second.type, 6u);
  EXPECT_EQ(second.body.size(), 20u + 52u) << "49 bytes padded to 52";
  EXPECT_EQ(U32At(second.body, 4), 3u);
  EXPECT_EQ(U32At(second.body, 8), 1'234'567u);
  EXPECT_EQ(U32At(second.body, 12), 49u);
  EXPECT_EQ(U32At(second.body, 16), 49u);
  EXPECT_EQ(std::vector<uint8_t>(second.body.begin() + 20, second.body.begin() + 69), odd);
  EXPECT_EQ(std::vector<uint8_t>(second.body.begin() + 69, second.body.end()),
            (std::vector<uint8_t>{0, 0, 0}));

  const Block& empty = blocks[4];
  EXPECT_EQ(empty.type, 6u);
  EXPECT_EQ(empty.body.size(), 20u);
  EXPECT_EQ(U32At(empty.body, 12), 0u);
}

TEST_F(PcapWriterTest, UnopenablePathIsAnErrorNamingThePath) {
  const std::string path = (dir_ / "no_such_dir" / "out.pcapng").string();
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open(path);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), path + ": cannot open for writing: No such file or directory");
}

TEST_F(PcapWriterTest, FailedWritesAreReportedNotFatal) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full is not available";
  // /dev/full accepts the open and fails every write once the stdio buffer is flushed.
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open("/dev/full");
  ASSERT_TRUE(w.ok()) << w.status().message();
  const std::vector<uint8_t> frame(1000, 0xAB);
  bool refused = false;
  for (int i = 0; i < 1000 && !refused; ++i) refused = !(*w)->Write(i, frame);
  EXPECT_TRUE(refused) << "1 MB to /dev/full must fail once the buffer flushes";
  EXPECT_FALSE((*w)->ok());
  EXPECT_FALSE((*w)->Write(2000, frame)) << "writes after a failure are skipped";
  EXPECT_FALSE((*w)->Close());
  EXPECT_FALSE((*w)->Close()) << "closing twice still reports the failure";
}

TEST_F(PcapWriterTest, WriteAfterCloseIsRefused) {
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open((dir_ / "c.pcapng").string());
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Close());
  EXPECT_FALSE((*w)->Write(1, std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ((*w)->packets(), 0u);
}

/** A LinkSink that records what reaches it and when. */
class RecordingSink final : public hw::LinkSink {
 public:
  explicit RecordingSink(kernel::EventQueue& events) : events_(events) {}
  void Receive(hw::Frame frame) override {
    arrivals.push_back({events_.now_ps() / 1000, frame.bytes});
  }
  std::vector<Packet> arrivals;

 private:
  kernel::EventQueue& events_;
};

TEST_F(PcapWriterTest, FabricCapturesEveryHandOverAtArrivalWithDuplicatesAndCorruption) {
  FabricConfig config;
  config.duplicate = 1.0;
  config.corrupt = 1.0;
  kernel::EventQueue events;
  SwitchFabric fabric(events, config);
  RecordingSink to0(events);
  RecordingSink to1(events);
  hw::FabricLink* port0 = fabric.Attach(0, &to0);
  hw::FabricLink* port1 = fabric.Attach(1, &to1);
  const fs::path path = dir_ / "fabric.pcapng";
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open(path.string());
  ASSERT_TRUE(w.ok());
  fabric.SetCapture(w->get());

  std::vector<std::vector<uint8_t>> sent;
  for (uint8_t i = 0; i < 3; ++i) {
    hw::Frame f;
    f.dest_adapter = i % 2 == 0 ? 1 : 0;
    f.bytes.assign(64, static_cast<uint8_t>(0x10 + i));
    sent.push_back(f.bytes);
    (i % 2 == 0 ? port0 : port1)->Send(std::move(f), 1000 * i);
  }
  events.RunWhile([] { return true; });
  ASSERT_TRUE((*w)->Close());

  EXPECT_EQ(fabric.counters().frames_duplicated, 3u);
  EXPECT_EQ(fabric.counters().frames_corrupted, 3u);
  std::vector<Packet> delivered = to0.arrivals;
  delivered.insert(delivered.end(), to1.arrivals.begin(), to1.arrivals.end());
  std::sort(delivered.begin(), delivered.end(),
            [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  const std::vector<Packet> captured = ReadPackets(path);
  ASSERT_EQ(captured.size(), 6u) << "three frames, each duplicated";
  EXPECT_TRUE(captured == delivered) << "same bytes, same times, in arrival order";
  for (const Packet& p : captured) {
    bool matches_a_sent_frame = false;
    for (const auto& s : sent) matches_a_sent_frame |= p.bytes == s;
    EXPECT_FALSE(matches_a_sent_frame) << "captured as it travels: with the flipped bit";
  }
}

TEST_F(PcapWriterTest, FabricCapturesRawInjectionsUntilCaptureIsCleared) {
  kernel::EventQueue events;
  SwitchFabric fabric(events, FabricConfig{});
  RecordingSink sink(events);
  fabric.Attach(0, &sink);
  const fs::path path = dir_ / "stopped.pcapng";
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open(path.string());
  ASSERT_TRUE(w.ok());
  fabric.SetCapture(w->get());
  fabric.InjectRaw(0, {1, 2, 3});
  events.RunWhile([] { return true; });
  fabric.SetCapture(nullptr);
  fabric.InjectRaw(0, {4, 5, 6});
  events.RunWhile([] { return true; });
  ASSERT_TRUE((*w)->Close());
  const std::vector<Packet> captured = ReadPackets(path);
  ASSERT_EQ(captured.size(), 1u);
  EXPECT_EQ(captured[0].bytes, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(sink.arrivals.size(), 2u);
}

TEST_F(PcapWriterTest, SelectionKeepsFramesInTheWindowToOrFromASelectedAdapter) {
  kernel::EventQueue events;
  SwitchFabric fabric(events, FabricConfig{});
  RecordingSink sink0(events), sink1(events), sink2(events);
  hw::FabricLink* ports[3] = {fabric.Attach(0, &sink0), fabric.Attach(1, &sink1),
                              fabric.Attach(2, &sink2)};
  const fs::path path = dir_ / "selected.pcapng";
  Result<std::unique_ptr<PcapWriter>> w = PcapWriter::Open(path.string());
  ASSERT_TRUE(w.ok());
  Result<TraceSelection> selection = TraceSelection::Parse("1us:5us", "2", "");
  ASSERT_TRUE(selection.ok());
  (*w)->Select(*selection);
  fabric.SetCapture(w->get());
  // One frame a microsecond on each of the routes 0->1, 1->2 and 2->0, for 8 us (arriving a
  // link delay later): of those arriving in [1us, 5us), the frames of 1->2 and 2->0, which
  // adapter 2 receives or sends, are kept.
  for (uint64_t us = 0; us < 8; ++us) {
    for (uint16_t from = 0; from < 3; ++from) {
      hw::Frame f;
      f.dest_adapter = static_cast<uint16_t>((from + 1) % 3);
      f.bytes.assign(64, static_cast<uint8_t>(from));
      ports[from]->Send(std::move(f), us * 1'000'000);
    }
  }
  events.RunWhile([] { return true; });
  ASSERT_TRUE((*w)->Close());
  std::vector<Packet> kept;
  for (const RecordingSink* sink : {&sink0, &sink1, &sink2}) {
    for (const Packet& p : sink->arrivals) {
      const bool involves_2 = p.bytes[0] != 0;  // sent by 1 (to 2) or by 2 (to 0)
      if (involves_2 && p.time_ns >= 1000 && p.time_ns < 5000) kept.push_back(p);
    }
  }
  std::sort(kept.begin(), kept.end(),
            [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  const std::vector<Packet> captured = ReadPackets(path);
  ASSERT_EQ(captured.size(), 8u) << "two routes, four microseconds";
  EXPECT_EQ(captured.size(), kept.size());
  for (const Packet& p : captured) EXPECT_NE(p.bytes[0], 0) << "0->1 involves neither";
}

}  // namespace
}  // namespace nicsim::sim
