// SPDX-License-Identifier: Apache-2.0
// rtl.vcd: the rtl backend writes one VCD per Verilated block per adapter, with the blocks'
// activity in it; no VCD unless asked; bad settings are bad input. SystemC elaborates once per
// process, so every run goes through the nicsim binary.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

#ifndef NICSIM_BINARY
#error "NICSIM_BINARY must name the nicsim executable"
#endif
#ifndef NICSIM_RTL_BUILT
#define NICSIM_RTL_BUILT 1
#endif

namespace nicsim {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::ReadFile;
using testing::ScratchDir;

#define SKIP_WITHOUT_RTL()                                                           \
  if (!NICSIM_RTL_BUILT) {                                                           \
    GTEST_SKIP() << "needs the rtl backend (SystemC and Verilator), not built here"; \
  }

CommandResult Nicsim(const std::vector<std::string>& args, const fs::path& dir) {
  std::vector<std::string> argv = {NICSIM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunCommand(argv, dir);
}

/** Four 300-byte packets from adapter 0 to adapter 1 on the rtl backend, plus `extra`. */
std::vector<std::string> TinyRtlRun(const fs::path& out, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",   "--quiet",         "--set", "backend=rtl",
                                   "--set", "workload=stream", "--set", "stream.packets=4",
                                   "--set", "stream.size=300", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

/** A VCD file: its header facts and, per signal name, each value it changed to. */
struct Vcd {
  bool has_timescale = false;
  bool has_enddefinitions = false;
  size_t vars = 0;
  size_t time_steps = 0;
  std::map<std::string, std::vector<std::string>> changes;
  /** Per 1-bit signal, the falling clock edges at which it was 1 (outputs are read in the
   *  clock's high half, so each is one cycle's value, back-to-back cycles counted apart). */
  std::map<std::string, size_t> high_at_fall;
  /** How many times the 1-bit signal `name` went to 1. */
  size_t Rises(const std::string& name) const {
    auto it = changes.find(name);
    size_t n = 0;
    if (it != changes.end()) {
      for (const std::string& v : it->second) n += v == "1";
    }
    return n;
  }
};

Vcd ParseVcd(const std::string& text) {
  Vcd vcd;
  std::map<std::string, std::vector<std::string>> names;  // id code -> signal names
  const std::regex var(R"(^\s*\$var\s+\S+\s+\d+\s+(\S+)\s+(\S+))");
  std::istringstream in(text);
  bool body = false;
  std::map<std::string, std::string> value_of;  // signal name -> its value now
  bool clk_fell = false;
  auto end_step = [&] {
    if (clk_fell) {
      for (const auto& [name, v] : value_of) vcd.high_at_fall[name] += v == "1";
    }
    clk_fell = false;
  };
  for (std::string line; std::getline(in, line);) {
    if (!body) {
      std::smatch m;
      if (line.find("$timescale 1ps $end") != std::string::npos) vcd.has_timescale = true;
      if (std::regex_search(line, m, var)) {
        ++vcd.vars;
        names[m[1]].push_back(m[2]);
      }
      if (line.find("$enddefinitions") != std::string::npos) {
        vcd.has_enddefinitions = true;
        body = true;
      }
      continue;
    }
    if (line.empty()) continue;
    std::string value, code;
    if (line[0] == '#') {
      end_step();
      ++vcd.time_steps;
      continue;
    } else if (line[0] == 'b') {
      const size_t space = line.find(' ');
      value = line.substr(1, space - 1);
      code = line.substr(space + 1);
    } else if (line[0] == '0' || line[0] == '1') {
      value = line.substr(0, 1);
      code = line.substr(1);
    } else {
      continue;
    }
    for (const std::string& name : names[code]) {
      vcd.changes[name].push_back(value);
      if (name == "clk" && value == "0" && value_of[name] == "1") clk_fell = true;
      value_of[name] = value;
    }
  }
  end_step();
  return vcd;
}

std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.insert(entry.path().filename());
  return files;
}

TEST(RtlVcdTest, WritesOneVcdPerBlockPerAdapterWithTheBlocksActivity) {
  SKIP_WITHOUT_RTL();
  ScratchDir scratch("nicsim_rtl_vcd");
  fs::create_directories(scratch.path() / "waves");
  const CommandResult r =
      Nicsim(TinyRtlRun(scratch.path() / "out",
                        {"--set", "rtl.vcd=" + (scratch.path() / "waves" / "run").string()}),
             scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FilesIn(scratch.path() / "waves"),
            (std::set<std::string>{"run.a0.allocator.vcd", "run.a0.rx_sequencer.vcd",
                                   "run.a1.allocator.vcd", "run.a1.rx_sequencer.vcd"}));
  std::map<std::string, Vcd> vcds;
  for (const std::string& name : FilesIn(scratch.path() / "waves")) {
    const std::string text = ReadFile(scratch.path() / "waves" / name);
    const Vcd vcd = ParseVcd(text);
    EXPECT_EQ(text.rfind("$version", 0), 0u) << name;
    EXPECT_TRUE(vcd.has_timescale) << name;
    EXPECT_TRUE(vcd.has_enddefinitions) << name;
    EXPECT_GT(vcd.vars, 10u) << name;
    EXPECT_GT(vcd.time_steps, 10u) << name;
    // Reset is released once; the clock runs.
    EXPECT_EQ(vcd.Rises("rst_n"), 1u) << name;
    EXPECT_GT(vcd.Rises("clk"), 10u) << name;
    vcds[name] = vcd;
  }
  // The receiver's sequencer wrote out each of the four frames; the sender's none.
  EXPECT_EQ(vcds["run.a1.rx_sequencer.vcd"].Rises("start_valid"), 4u);
  EXPECT_EQ(vcds["run.a1.rx_sequencer.vcd"].Rises("done"), 4u);
  EXPECT_EQ(vcds["run.a0.rx_sequencer.vcd"].Rises("start_valid"), 0u);
  EXPECT_EQ(vcds["run.a0.rx_sequencer.vcd"].Rises("done"), 0u);
  // Each adapter's allocator answered a DTB allocation and a release per packet, one answer
  // per cycle (two may come in back-to-back cycles).
  for (const char* name : {"run.a0.allocator.vcd", "run.a1.allocator.vcd"}) {
    EXPECT_EQ(vcds[name].high_at_fall["rsp_valid"], 8u) << name;
    EXPECT_EQ(vcds[name].high_at_fall["rsp_ok"], 8u) << name;
  }
}

TEST(RtlVcdTest, WritesNoVcdUnlessAsked) {
  SKIP_WITHOUT_RTL();
  ScratchDir scratch("nicsim_rtl_vcd");
  const CommandResult r = Nicsim(TinyRtlRun(scratch.path() / "out", {}), scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& entry : fs::recursive_directory_iterator(scratch.path())) {
    EXPECT_NE(entry.path().extension(), ".vcd") << entry.path();
  }
}

TEST(RtlVcdTest, APrefixThatCannotBeWrittenIsBadInput) {
  SKIP_WITHOUT_RTL();
  ScratchDir scratch("nicsim_rtl_vcd");
  const std::string prefix = (scratch.path() / "missing" / "run").string();
  const CommandResult r =
      Nicsim(TinyRtlRun(scratch.path() / "out", {"--set", "rtl.vcd=" + prefix}), scratch.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "nicsim: rtl.vcd: cannot write " + prefix +
                       ".a0.allocator.vcd: No such file or directory (seed 1)\n");
  EXPECT_FALSE(fs::exists(scratch.path() / "out" / "stats.json"));
}

TEST(RtlVcdTest, OtherBackendsRefuseIt) {
  ScratchDir scratch("nicsim_rtl_vcd");
  const CommandResult r = Nicsim({"run", "--quiet", "--set", "backend=func", "--set",
                                  "rtl.vcd=waves", "--out", (scratch.path() / "out").string()},
                                 scratch.path());
  EXPECT_EQ(r.exit_code, 2);
  // The error points at the flag that set the parameter.
  EXPECT_EQ(r.err,
            "nicsim: --set rtl.vcd=waves: rtl.vcd: only the rtl backend has Verilated blocks to "
            "trace (backend is 'func') (seed 1)\n");
}

}  // namespace
}  // namespace nicsim
