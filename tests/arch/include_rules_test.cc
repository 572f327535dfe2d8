// SPDX-License-Identifier: Apache-2.0
// The house's import rules, read from the sources themselves: every room includes only the
// rooms beneath it (a message goes down ulp -> hal -> driver -> the device seam, never back;
// app/ stands on realport/, which stands on sim/), inside sim/ each folder includes only the
// folders beneath it, and inside ulp/ each protocol only the engines it stands on. A rule
// broken here names the file, line and header.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#ifndef NICSIM_SOURCE_DIR
#error "NICSIM_SOURCE_DIR must name the source tree"
#endif

namespace nicsim {
namespace {

namespace fs = std::filesystem;

/** Room -> rooms (top-level directories) its files may include, besides itself. */
const std::map<std::string, std::set<std::string>>& Rules() {
  static const std::map<std::string, std::set<std::string>> rules = {
      {"base", {}},
      {"abi", {"base"}},
      {"firmware", {"abi", "base"}},
      {"kernel", {"base"}},
      {"host", {"abi", "base"}},
      {"driver", {"host", "abi", "base"}},
      {"hal", {"driver", "host", "kernel", "abi", "base"}},
      {"ulp", {"hal", "abi", "base"}},
      {"hw", {"firmware", "driver", "host", "kernel", "abi", "base"}},
      {"sim", {"ulp", "hal", "hw", "firmware", "driver", "host", "kernel", "abi", "base"}},
      {"realport",
       {"sim", "ulp", "hal", "hw", "firmware", "driver", "host", "kernel", "abi", "base"}},
      {"app",
       {"realport", "sim", "ulp", "hal", "hw", "firmware", "driver", "host", "kernel", "abi",
        "base"}},
  };
  return rules;
}

/** sim/'s folders from the bottom up: each may include only the folders before it. */
const std::vector<std::string>& SimFloors() {
  static const std::vector<std::string> floors = {"config",  "observe",   "fabric", "distrib",
                                                  "cluster", "workloads", "mpirun", "run"};
  return floors;
}

/** ulp/'s folders -> the folders each may include besides itself (and ulp/'s loose headers,
 *  which every folder shares): the protocols stand on their engines, never the other way. */
const std::map<std::string, std::set<std::string>>& UlpFolders() {
  static const std::map<std::string, std::set<std::string>> folders = {
      {"transport", {}},
      {"segments", {}},
      {"postbox", {"segments"}},
      {"pushpull", {"segments"}},
      {"shm", {"segments", "postbox", "pushpull"}},
      {"ip", {}},
      {"dlm", {}},
      {"gsm", {}},
      {"mpi", {"transport", "segments", "postbox", "pushpull"}},
  };
  return folders;
}

/** Hardware models reach the driver only through its device seam. */
bool HwMaySee(const std::string& header) {
  return header.rfind("driver/", 0) != 0 || header == "driver/device_access.h";
}

/** An include: the file and line it is written at, and the header it names. */
struct Include {
  std::string file;
  int line;
  std::string header;
};
/** An include a rule forbids. */
using Violation = Include;

/** Every quoted include under `dir` (a path below the source tree). */
std::vector<Include> IncludesUnder(const std::string& dir) {
  std::vector<Include> found;
  static const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(fs::path(NICSIM_SOURCE_DIR) / dir)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    const std::string rel = fs::relative(e.path(), NICSIM_SOURCE_DIR).string();
    std::ifstream in(e.path());
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
      std::smatch m;
      if (std::regex_search(text, m, include)) found.push_back({rel, line, m[1]});
    }
  }
  return found;
}

/** The first folder of an include's path ("sim" of "sim/cluster/cluster.h"), or "". */
std::string RoomOf(const std::string& header, size_t part = 0) {
  size_t start = 0;
  for (size_t i = 0; i < part; ++i) {
    start = header.find('/', start);
    if (start == std::string::npos) return "";
    ++start;
  }
  const size_t end = header.find('/', start);
  return end == std::string::npos ? "" : header.substr(start, end - start);
}

std::vector<Violation> Check(const std::string& room, const std::set<std::string>& allowed) {
  std::vector<Violation> found;
  for (const Include& i : IncludesUnder(room)) {
    const std::string target = RoomOf(i.header);
    if (target.empty() || target == room) continue;
    if (allowed.count(target) == 0 || (room == "hw" && !HwMaySee(i.header))) {
      found.push_back(i);
    }
  }
  return found;
}

TEST(IncludeRulesTest, EveryRoomIncludesOnlyTheRoomsBelowIt) {
  for (const auto& [room, allowed] : Rules()) {
    for (const Violation& v : Check(room, allowed)) {
      ADD_FAILURE() << v.file << ":" << v.line << ": " << room << "/ may not include " << v.header;
    }
  }
}

/** The folders beneath sim/`folder`. */
std::set<std::string> FloorsBelow(const std::string& folder) {
  const std::vector<std::string>& floors = SimFloors();
  return {floors.begin(), std::find(floors.begin(), floors.end(), folder)};
}

/** Every `#include "ROOM/F/..."` under ROOM/`folder` whose F is neither `folder` nor in
 *  `allowed`. */
std::vector<Violation> FolderViolations(const std::string& room, const std::string& folder,
                                        const std::set<std::string>& allowed) {
  std::vector<Violation> found;
  for (const Include& i : IncludesUnder(room + "/" + folder)) {
    if (RoomOf(i.header) != room) continue;
    const std::string target = RoomOf(i.header, 1);
    if (target.empty() || target == folder || allowed.count(target) > 0) continue;
    found.push_back(i);
  }
  return found;
}

/** The names of `room`'s folders, and of its files other than CMakeLists.txt. */
void ListRoom(const std::string& room, std::set<std::string>* folders,
              std::set<std::string>* files) {
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(NICSIM_SOURCE_DIR) / room)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory()) {
      folders->insert(name);
    } else if (name != "CMakeLists.txt") {
      files->insert(name);
    }
  }
}

TEST(IncludeRulesTest, InsideSimEveryFolderIncludesOnlyTheFoldersBelowIt) {
  const std::set<std::string> listed(SimFloors().begin(), SimFloors().end());
  std::set<std::string> folders, files;
  ListRoom("sim", &folders, &files);
  for (const std::string& name : folders) {
    EXPECT_EQ(listed.count(name), 1u) << "sim/" << name << "/ has no floor in SimFloors()";
  }
  for (const std::string& name : files) {
    ADD_FAILURE() << "sim/" << name << " belongs in one of sim/'s folders";
  }
  for (const std::string& folder : SimFloors()) {
    for (const Violation& v : FolderViolations("sim", folder, FloorsBelow(folder))) {
      ADD_FAILURE() << v.file << ":" << v.line << ": sim/" << folder << "/ may not include "
                    << v.header;
    }
  }
}

TEST(IncludeRulesTest, TheFloorCheckerSeesAViolation) {
  // The run includes the cluster and the workloads: held to the bottom floor's rule it must
  // fail, or the check above could pass by reading nothing.
  EXPECT_FALSE(FolderViolations("sim", "run", {}).empty());
}

TEST(IncludeRulesTest, InsideUlpEveryFolderIncludesOnlyTheEnginesItStandsOn) {
  std::set<std::string> folders, files;
  ListRoom("ulp", &folders, &files);
  for (const std::string& name : folders) {
    EXPECT_EQ(UlpFolders().count(name), 1u) << "ulp/" << name << "/ has no entry in UlpFolders()";
  }
  for (const auto& [folder, allowed] : UlpFolders()) {
    for (const Violation& v : FolderViolations("ulp", folder, allowed)) {
      ADD_FAILURE() << v.file << ":" << v.line << ": ulp/" << folder << "/ may not include "
                    << v.header;
    }
  }
  // MPI stands on the transport: held to the transport's rule it must fail.
  EXPECT_FALSE(FolderViolations("ulp", "mpi", {}).empty());
}

/** Every `#include "firmware/..."` under `dir` naming a header outside the microcode's public
 *  face (the entry points, the platform seam, the state and counter names, its parameters). */
std::vector<Violation> FirmwareInternals(const std::string& dir) {
  static const std::set<std::string> kPublic = {"firmware/microcode.h", "firmware/platform.h",
                                                "firmware/states.h", "firmware/counters.h",
                                                "firmware/microcode_params.h"};
  std::vector<Violation> found;
  for (const Include& i : IncludesUnder(dir)) {
    // The engines' own unit tests drive them directly.
    if (i.file.rfind("tests/firmware/", 0) == 0) continue;
    if (RoomOf(i.header) == "firmware" && kPublic.count(i.header) == 0) {
      found.push_back(i);
    }
  }
  return found;
}

TEST(IncludeRulesTest, OutsideTheFirmwareOnlyItsPublicHeadersAreSeen) {
  for (const char* dir : {"hw", "sim", "realport", "app", "ulp", "hal", "driver", "host", "kernel",
                          "bench", "fuzz", "tests", "tools"}) {
    if (!fs::exists(fs::path(NICSIM_SOURCE_DIR) / dir)) continue;
    for (const Violation& v : FirmwareInternals(dir)) {
      ADD_FAILURE() << v.file << ":" << v.line << ": firmware internal " << v.header;
    }
  }
  // The check reads something: inside the firmware the engines include each other.
  EXPECT_FALSE(FirmwareInternals("firmware").empty());
}

TEST(IncludeRulesTest, TheCheckerSeesAViolation) {
  // sim/ includes ulp/ and hal/: held to the firmware's rules it must fail, or the check above
  // could pass by reading nothing.
  EXPECT_FALSE(Check("sim", Rules().at("firmware")).empty());
}

}  // namespace
}  // namespace nicsim
