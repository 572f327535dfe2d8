// SPDX-License-Identifier: Apache-2.0
#include "app/counter_docs.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "firmware/counters.h"
#include "firmware/states.h"
#include "hw/dpdk/ether_frame.h"
#include "hw/func/adapter_model.h"
#include "sim/fabric/switch_fabric.h"
#include "ulp/ip/stats.h"
#include "ulp/postbox/stats.h"
#include "ulp/pushpull/stats.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/transport.h"

namespace nicsim::sim {
namespace {

/** One table of the documentation: where its counters appear, and the rows. */
struct Table {
  std::string_view title;
  std::string_view where;
  std::vector<CounterDoc> rows;
};

template <class Entries>
std::vector<CounterDoc> Rows(const Entries& entries, size_t skip = 0) {
  std::vector<CounterDoc> rows;
  for (size_t i = skip; i < entries.size(); ++i) rows.push_back({entries[i].name, entries[i].doc});
  return rows;
}

std::vector<Table> Tables() {
  return {
      {"Microcode drop reasons", "stats.json `drops` (summed over adapters)",
       Rows(fw::kDropReasons)},
      {"Fabric drop reasons", "stats.json `drops`", Rows(kFabricDrops)},
      {"Microcode counters", "stats.json `adapters[]`", Rows(fw::kCounterFields)},
      {"Task waits by resource", "stats.json `adapters[].waits`", Rows(fw::kResources, 1)},
      {"Adapter model counters", "stats.json `adapters[]`", Rows(hw::func::kAdapterCounterFields)},
      {"Reliable transport",
       "stats.json `workload.transport` (MPI workloads); `nicsim port "
       "--mode transport`",
       Rows(ulp::TransportStats::Fields())},
      {"Registration caches",
       "stats.json `workload.transport.registrations` (MPI workloads, "
       "summed over the ranks); `nicsim port --mode transport` summary `registrations`",
       Rows(ulp::RegistrationCache::Stats::Fields())},
      {"Postbox senders",
       "stats.json `workload.mpi.postbox` (MPI workloads with "
       "mpi.intranode=postbox, summed over the ranks)",
       Rows(ulp::postbox::SenderStats::Fields())},
      {"Postbox receivers", "stats.json `workload.mpi.postbox`, beside the senders' counters",
       Rows(ulp::postbox::ReceiverStats::Fields())},
      {"Push-pull senders",
       "stats.json `workload.mpi.pushpull` (MPI workloads with "
       "mpi.intranode=pushpull, summed over the ranks)",
       Rows(ulp::pushpull::SenderStats::Fields())},
      {"Push-pull receivers", "stats.json `workload.mpi.pushpull`, beside the senders' counters",
       Rows(ulp::pushpull::ReceiverStats::Fields())},
      {"IP interface", "stats.json `workload.ip` (ip_exchange, summed over the nodes)",
       Rows(ulp::ip::IpStats::Fields())},
      {"Real port drop reasons", "`nicsim port` summary `drops.port`", Rows(hw::dpdk::kPortDrops)},
  };
}

}  // namespace

std::string CountersMarkdown() {
  std::string out;
  for (const Table& t : Tables()) {
    out += fmt::format("### {}\n\nIn {}.\n\n| name | counts |\n|---|---|\n", t.title, t.where);
    for (const CounterDoc& row : t.rows) out += fmt::format("| `{}` | {} |\n", row.name, row.doc);
    out += "\n";
  }
  return out;
}

std::string CountersText() {
  std::string out = fmt::format("{:<24} {:<26} {}\n", "table", "name", "counts");
  for (const Table& t : Tables()) {
    for (const CounterDoc& row : t.rows) {
      out += fmt::format("{:<24} {:<26} {}\n", t.title, row.name, row.doc);
    }
  }
  return out;
}

}  // namespace nicsim::sim
