// SPDX-License-Identifier: Apache-2.0
// The DPDK Environment Abstraction Layer, initialised once per process from a string of EAL
// options; every later call reuses that first outcome. Errors are Status values, never aborts.
#pragma once

#include <string_view>

#include "base/status.h"

namespace nicsim::hw::dpdk {

/**
 * EAL options that need neither root, hugepages nor a PCI device: heap memory instead of
 * hugepages, no PCI scan, no shared runtime files, one lcore, no telemetry socket. Ports
 * come from vdevs or rte_eth_from_rings (see ring_link.h).
 */
inline constexpr std::string_view kUnprivilegedEalArgs =
    "--no-huge -m 256 --no-pci --no-shconf -l 0 --no-telemetry --log-level=lib.eal:warning";

/**
 * Initialises the EAL with `args`: EAL options separated by blanks (no quoting; the program
 * name is supplied). The EAL can start only once per process, so the first call decides:
 * later calls return its outcome whatever their `args` (a failed first start stays failed).
 * An EAL already started by someone else counts as success. Thread safe.
 */
Status InitEal(std::string_view args);

/** True once InitEal has succeeded in this process. */
bool EalReady();

}  // namespace nicsim::hw::dpdk
