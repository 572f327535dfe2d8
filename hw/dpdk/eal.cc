// SPDX-License-Identifier: Apache-2.0
// EAL start-up: the option string becomes an argv that lives as long as the process (the EAL
// keeps pointers into it), and the outcome of the one rte_eal_init call is remembered.
#include "hw/dpdk/eal.h"

#include <rte_eal.h>
#include <rte_errno.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hw/dpdk/net_crc.h"

namespace nicsim::hw::dpdk {
namespace {

std::mutex eal_mutex;
/** The outcome of the first InitEal; empty until then. */
std::optional<Status> eal_outcome;

/** The argv handed to rte_eal_init: never freed, because the EAL may keep argv[0]. */
std::vector<std::string>& EalArgStorage() {
  static auto* storage = new std::vector<std::string>();
  return *storage;
}

}  // namespace

Status InitEal(std::string_view args) {
  std::lock_guard<std::mutex> lock(eal_mutex);
  if (eal_outcome.has_value()) return *eal_outcome;

  std::vector<std::string>& words = EalArgStorage();
  words.emplace_back("nicsim");
  size_t pos = 0;
  while (pos < args.size()) {
    const size_t start = args.find_first_not_of(" \t\n", pos);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(args.find_first_of(" \t\n", start), args.size());
    words.emplace_back(args.substr(start, end - start));
    pos = end;
  }
  static auto* argv = new std::vector<char*>();
  for (std::string& w : words) argv->push_back(w.data());
  argv->push_back(nullptr);

  const int rc = rte_eal_init(static_cast<int>(words.size()), argv->data());
  if (rc >= 0 || rte_errno == EALREADY) {
    // EALREADY: someone in this process started the EAL before us; it is usable.
    eal_outcome = Status();
    // Picks the frame CRC's algorithm now, on this one thread: left to its first call,
    // rte_net_crc chooses lazily and, meanwhile, leaves its handler table null for a moment,
    // which crashes a port on another lcore that computes a CRC just then.
    SelectNetCrc();
  } else {
    eal_outcome = Status::Error("dpdk: rte_eal_init(\"" + std::string(args) +
                                "\") failed: " + rte_strerror(rte_errno));
  }
  return *eal_outcome;
}

bool EalReady() {
  std::lock_guard<std::mutex> lock(eal_mutex);
  return eal_outcome.has_value() && eal_outcome->ok();
}

}  // namespace nicsim::hw::dpdk
