// SPDX-License-Identifier: Apache-2.0
// tools/nicsim.lua read through tshark: a `nicsim run --pcap` capture decodes to the exact
// ping-pong rows, and a hand-built capture decodes every WireHeader field, CRC and malformation.
#include <gtest/gtest.h>

#include "tests/support/backends.h"
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "abi/packet.h"
#include "hw/common/frame_codec.h"
#include "sim/fabric/pcap_writer.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif
#ifndef NICSIM_SOURCE_DIR
#error "NICSIM_SOURCE_DIR must name the source tree (for tools/nicsim.lua)"
#endif

namespace nicsim {
namespace {

namespace fs = std::filesystem;

/** Quotes `arg` for /bin/sh. */
std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/** What one shell command did: exit status (-1 if it did not exit normally) and stdout. */
struct Outcome {
  int exit_code = -1;
  std::string out;
};

Outcome RunShell(const std::string& command) {
  Outcome o;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return o;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), pipe)) > 0;) o.out.append(buf, n);
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  return o;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class PcapDissectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "tshark is not installed (scripts/setup.sh installs it)";
    }
    std::string pattern = (fs::temp_directory_path() / "nicsim_pcap_XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    ASSERT_NE(mkdtemp(buffer.data()), nullptr) << std::strerror(errno);
    dir_ = buffer.data();
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  /**
   * Decodes `pcap` with tools/nicsim.lua and prints `fields` tab-separated, one row per
   * packet. tshark's stderr (it warns when run as root) goes to a file shown on failure.
   */
  std::vector<std::string> Decode(const fs::path& pcap, const std::vector<std::string>& fields) {
    const std::string lua = std::string(NICSIM_SOURCE_DIR) + "/tools/nicsim.lua";
    std::string cmd = "tshark -n -r " + ShellQuote(pcap.string()) + " -X " +
                      ShellQuote("lua_script:" + lua) + " -T fields";
    for (const std::string& f : fields) cmd += " -e " + f;
    const fs::path err = dir_ / "tshark.err";
    cmd += " 2>" + ShellQuote(err.string());
    const Outcome o = RunShell(cmd);
    EXPECT_EQ(o.exit_code, 0) << cmd << "\n" << ReadFile(err);
    // A Lua error does not fail tshark: it only says so on stderr.
    const std::string errors = ReadFile(err);
    EXPECT_EQ(errors.find("Lua"), std::string::npos) << errors;
    return Lines(o.out);
  }

  fs::path dir_;
};

TEST_F(PcapDissectorTest, PingPongCaptureDecodesToTheExactPacketSequence) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  const fs::path pcap = dir_ / "run.pcapng";
  const fs::path out = dir_ / "out";
  const std::string cmd = std::string(ShellQuote(NICSIM_BINARY)) +
                          " run pingpong --set 'pingpong.sizes=[0,100]' --set pingpong.iterations=2"
                          " --set pingpong.stream_packets=2 --quiet --pcap " +
                          ShellQuote(pcap.string()) + " --out " + ShellQuote(out.string()) +
                          " 2>&1";
  const Outcome run = RunShell(cmd);
  ASSERT_EQ(run.exit_code, 0) << cmd << "\n" << run.out;
  const nlohmann::json stats = nlohmann::json::parse(ReadFile(out / "stats.json"));

  const std::vector<std::string> rows = Decode(
      pcap, {"nicsim.src_adapter", "nicsim.dest_adapter", "nicsim.len_bytes", "nicsim.ulp_word"});
  // Per size: two round trips (ping 0->1, pong 1->0), then a two-packet stream 0->1. Every
  // message of the sweep has its own ulp_word (a pong echoes its ping's), counting up over
  // the phases, so a late copy is told from a new message. No faults: nothing else is on the
  // fabric.
  const std::vector<std::string> expected = {
      "0\t1\t0\t0",   "1\t0\t0\t0",   "0\t1\t0\t1",   "1\t0\t0\t1",
      "0\t1\t0\t2",   "0\t1\t0\t3",   "0\t1\t100\t4", "1\t0\t100\t4",
      "0\t1\t100\t5", "1\t0\t100\t5", "0\t1\t100\t6", "0\t1\t100\t7",
  };
  EXPECT_EQ(rows.size(), stats["packets_delivered"].get<uint64_t>())
      << "one captured frame per delivered packet";
  EXPECT_EQ(rows, expected);

  // Every frame is a packet-mode frame from window 0 to window 0 with a good CRC, and the
  // timestamps are the simulated arrival times, in order.
  const std::vector<std::string> detail =
      Decode(pcap, {"nicsim.type", "nicsim.src_window", "nicsim.dest_window", "nicsim.payload_len",
                    "nicsim.crc_good", "frame.time_epoch"});
  ASSERT_EQ(detail.size(), expected.size());
  double last_s = 0;
  for (size_t i = 0; i < detail.size(); ++i) {
    const std::string payload = i < 6 ? "0" : "100";
    const std::string prefix = "1\t0\t0\t" + payload + "\t1\t";
    ASSERT_EQ(detail[i].substr(0, prefix.size()), prefix) << "row " << i << ": " << detail[i];
    const double t_s = std::stod(detail[i].substr(prefix.size()));
    EXPECT_GT(t_s, last_s) << "row " << i;
    last_s = t_s;
  }
  EXPECT_LE(last_s * 1e9, stats["sim_time_ns"].get<double>());
}

TEST_F(PcapDissectorTest, DecodesEveryHeaderFieldCrcAndMalformedFrames) {
  abi::WireHeader h{};
  h.dest_adapter = 258;
  h.dest_window = 7;
  h.src_adapter = 513;
  h.src_window = 9;
  h.len_bytes = 5;
  h.type = static_cast<uint8_t>(abi::PacketType::kFifo);
  h.flags = 0x5A;
  h.protection_key = 0xDEADBEEF;
  h.ulp_word = 4'000'000'000u;
  h.rcxt_id = 77;
  h.tid = 123456;
  h.msg_offset = 4096;
  h.pvo = 0x0123456789ABCDEFull;
  h.aux = 0xCAFEF00D;
  const uint8_t payload[5] = {'h', 'e', 'l', 'l', 'o'};
  const std::vector<uint8_t> good = hw::EncodeFrame(h, payload, 5);
  std::vector<uint8_t> corrupted = good;
  corrupted[50] ^= 0x10;
  abi::WireHeader odd = h;
  odd.type = 7;
  odd.len_bytes = 9;  // claims more payload than the frame carries
  const std::vector<uint8_t> unknown = hw::EncodeFrame(odd, payload, 5);
  const std::vector<uint8_t> short_frame(10, 0xFF);

  const fs::path pcap = dir_ / "fields.pcapng";
  {
    Result<std::unique_ptr<sim::PcapWriter>> w = sim::PcapWriter::Open(pcap.string());
    ASSERT_TRUE(w.ok()) << w.status().message();
    // Stamped in ns: the picosecond tail is cut off. With picosecond stamps tshark 4.0 would
    // show 0.012776324 here (its 10^-12 conversion overflows past 18.4 ms).
    ASSERT_TRUE((*w)->Write(123'456'789'012ull, good));
    ASSERT_TRUE((*w)->Write(123'456'790'000ull, corrupted));
    ASSERT_TRUE((*w)->Write(123'456'791'000ull, unknown));
    ASSERT_TRUE((*w)->Write(123'456'792'000ull, short_frame));
    ASSERT_TRUE((*w)->Close());
  }
  const std::vector<std::string> rows =
      Decode(pcap, {"frame.time_epoch", "nicsim.dest_adapter", "nicsim.dest_window",
                    "nicsim.src_adapter", "nicsim.src_window", "nicsim.len_bytes", "nicsim.type",
                    "nicsim.flags", "nicsim.protection_key", "nicsim.ulp_word", "nicsim.rcxt_id",
                    "nicsim.tid", "nicsim.msg_offset", "nicsim.pvo", "nicsim.aux",
                    "nicsim.payload_len", "nicsim.crc_good", "nicsim.truncated"});
  const std::string fields =
      "258\t7\t513\t9\t5\t1\t0x5a\t0xdeadbeef\t4000000000\t77\t123456\t4096\t0x0123456789abcdef\t"
      "0xcafef00d\t5";
  const std::vector<std::string> expected = {
      "0.123456789\t" + fields + "\t1\t",
      "0.123456790\t" + fields + "\t0\t",
      "0.123456791\t258\t7\t513\t9\t9\t7\t0x5a\t0xdeadbeef\t4000000000\t77\t123456\t4096\t"
      "0x0123456789abcdef\t0xcafef00d\t5\t1\t",
      "0.123456792\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t1",
  };
  EXPECT_EQ(rows, expected);

  // The CRC field as stored, and the type by name in the Info column.
  uint32_t crc = 0;
  std::memcpy(&crc, good.data() + offsetof(abi::WireHeader, crc), 4);
  char crc_hex[16];
  std::snprintf(crc_hex, sizeof(crc_hex), "0x%08x", crc);
  const std::vector<std::string> info = Decode(pcap, {"nicsim.crc", "_ws.col.Info"});
  ASSERT_EQ(info.size(), 4u);
  EXPECT_EQ(info[0], std::string(crc_hex) + "\tFifo 513:9 -> 258:7 len=5 ulp=4000000000");
  EXPECT_EQ(info[2].substr(info[2].find('\t') + 1), "type 7 513:9 -> 258:7 len=9 ulp=4000000000");
  EXPECT_EQ(info[3], "\tmalformed: 10 bytes");
}

/** `nicsim run` with a small ping-pong and `--pcap path`; stdout and stderr together. */
Outcome RunWithPcap(const std::string& path) {
  return RunShell(std::string(ShellQuote(NICSIM_BINARY)) +
                  " run pingpong --set 'pingpong.sizes=[0,1000]' --set pingpong.iterations=20"
                  " --set pingpong.stream_packets=100 --quiet --out " +
                  ShellQuote(fs::temp_directory_path().string()) + " --pcap " + ShellQuote(path) +
                  " 2>&1");
}

TEST(PcapCliTest, UnopenablePcapPathExitsTwoNamingThePath) {
  const Outcome o = RunWithPcap("/nonexistent_dir/run.pcapng");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out,
            "nicsim: --pcap /nonexistent_dir/run.pcapng: cannot open for writing: No such file or "
            "directory (seed 1)\n");
}

TEST(PcapCliTest, FailedPcapWriteExitsTwoWithoutCrashing) {
  NICSIM_SKIP_WITHOUT_SYSTEMC();
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "/dev/full is not available";
  const Outcome o = RunWithPcap("/dev/full");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "nicsim: --pcap /dev/full: write failed (seed 1)\n");
}

}  // namespace
}  // namespace nicsim
