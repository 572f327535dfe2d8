// SPDX-License-Identifier: Apache-2.0
// Encodes a TimelineModel as Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing):
// metadata naming each adapter's process and tracks, then one event per slice or instant.
#pragma once

#include <string>

#include "sim/observe/timeline_model.h"

namespace nicsim::sim {

/**
 * The model as trace-event JSON text. `pid` is the adapter id and `tid` the track id (with
 * process_name "adapter N", thread_name and sort indexes as metadata); a slice is a complete
 * ("X") event, an instant an "i" event with thread scope. `ts` and `dur` are microseconds
 * written as exact decimals of the picosecond clock, so picosecond order survives. The model
 * must be closed (TimelineModel::Close) first.
 */
std::string TimelineJson(const TimelineModel& model);

}  // namespace nicsim::sim
