// SPDX-License-Identifier: Apache-2.0
// What every part of one task's transport shares, handed to each part by the facade: the
// task's host, its ports, its registrations, the settings, the counters and the timers.
#pragma once

#include "hal/task_host.h"
#include "ulp/transport/port_set.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/transport_config.h"
#include "hal/task_timers.h"

namespace nicsim::ulp {

/**
 * The facade (Transport) owns each of these once; a part keeps this set of references. The
 * counters are one TransportStats that every part counts into.
 */
struct TransportContext {
  hal::TaskHost& host;
  const PortSet& ports;
  RegistrationCache& regs;
  const TransportConfig& config;
  TransportStats& stats;
  hal::TaskTimers& timers;
};

}  // namespace nicsim::ulp
