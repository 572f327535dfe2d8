// SPDX-License-Identifier: Apache-2.0
// tools/ir_by_room.py on hand-written callgrind profiles: each function's own instructions go
// to the directory of the file that defines it (inlined code included, calls excluded), the
// per-unit figures divide by a callee's call count, and input that is not a profile exits 2
// naming the file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/support/process.h"

#ifndef NICSIM_SOURCE_DIR
#error "NICSIM_SOURCE_DIR must name the source tree (for tools/ir_by_room.py)"
#endif

namespace nicsim {
namespace {

using testing::CommandResult;
using testing::RunCommand;
using testing::ScratchDir;

const std::string kTool = std::string(NICSIM_SOURCE_DIR) + "/tools/ir_by_room.py";

// A profile of a tree rooted at /src: Dispatch (firmware) runs 100 instructions of its own,
// 7 of them inlined from a C++ header, and calls Send (hw/dpdk) twice, an inclusive 50 that
// is not Dispatch's own; Send runs 40; memcpy (libc) runs 30; an out-of-line vector template
// runs 5. Names are compressed as callgrind writes them: "(id) name" once, then "(id)".
constexpr char kProfile[] =
    "version: 1\n"
    "creator: callgrind-3.19.0\n"
    "positions: line\n"
    "events: Ir\n"
    "\n"
    "ob=(1) /build/nicsim\n"
    "fl=(1) /src/firmware/microcode.cc\n"
    "fn=(1) nicsim::fw::Microcode::Dispatch()\n"
    "10 60\n"
    "+2 33\n"
    "fi=(2) /usr/include/c++/12/bits/stl_vector.h\n"
    "900 7\n"
    "fe=(1)\n"
    "cfl=(3) /src/hw/dpdk/dpdk_port.cc\n"
    "cfn=(2) nicsim::hw::dpdk::DpdkPort::Send(nicsim::hw::Frame)\n"
    "calls=2 40\n"
    "14 50\n"
    "\n"
    "fl=(3)\n"
    "fn=(2)\n"
    "40 40\n"
    "\n"
    "ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "fl=(4) ./string/memmove.S\n"
    "fn=(3) memcpy\n"
    "* 30\n"
    "\n"
    "ob=(1)\n"
    "fl=(2)\n"
    "fn=(4) std::vector<int>::_M_realloc_insert()\n"
    "100 5\n"
    "\n"
    "totals: 175\n";

CommandResult RunTool(const ScratchDir& dir, const std::string& profile_text,
                      const std::vector<std::string>& extra) {
  const std::string profile = (dir.path() / "callgrind.out").string();
  std::ofstream(profile) << profile_text;
  std::vector<std::string> argv = {"/usr/bin/python3", kTool, profile, "--root", "/src"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunCommand(argv, dir.path());
}

TEST(IrByRoomTest, SumsEachFunctionsOwnInstructionsByItsRoom) {
  ScratchDir dir("ir_by_room");
  ASSERT_FALSE(dir.path().empty());
  const CommandResult r = RunTool(dir, kProfile, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "room                                         Ir   share  \n"
            "firmware                                    100   57.1%  \n"
            "hw/dpdk                                      40   22.9%  \n"
            "libc.so.6                                    30   17.1%  \n"
            "(C++ library templates)                       5    2.9%  \n"
            "total                                       175  100.0%  \n");
}

TEST(IrByRoomTest, DividesByTheCallsOfAFunction) {
  ScratchDir dir("ir_by_room");
  ASSERT_FALSE(dir.path().empty());
  // By the exact name, and by a prefix ending in "(": two calls to Send.
  for (const std::string name : {"nicsim::hw::dpdk::DpdkPort::Send(nicsim::hw::Frame)",
                                 "nicsim::hw::dpdk::DpdkPort::Send("}) {
    const CommandResult r = RunTool(dir, kProfile, {"--per-calls", name, "--top", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "room                                         Ir   share  Ir per unit (2 units)\n"
              "firmware                                    100   57.1%  50\n"
              "hw/dpdk                                      40   22.9%  20\n"
              "total                                       175  100.0%  88\n")
        << name;
  }
}

TEST(IrByRoomTest, RefusesWhatIsNotAProfile) {
  ScratchDir dir("ir_by_room");
  ASSERT_FALSE(dir.path().empty());
  // A cost line before the events: line, a name id never given a name, a count that is not a
  // number, no events at all, a callee never called.
  CommandResult r = RunTool(dir, "positions: line\nfn=(1) f\n10 5\n", {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("callgrind.out:3: a cost line before the events: line"), std::string::npos)
      << r.err;
  r = RunTool(dir, "events: Ir\nfn=(4)\n", {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("callgrind.out:2: fn=(4) before its name"), std::string::npos) << r.err;
  r = RunTool(dir, "events: Ir\nfn=(1) f\n10 5x\n", {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("callgrind.out:3: an Ir count that is not a number"), std::string::npos)
      << r.err;
  r = RunTool(dir, "hello\n", {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no events: line (not a callgrind profile)"), std::string::npos) << r.err;
  r = RunTool(dir, kProfile, {"--per-calls", "memset"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no calls to memset"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nicsim
