// SPDX-License-Identifier: Apache-2.0
// Encodes a TimelineModel as a Perfetto protobuf trace (a stream of TracePackets): the same
// processes, tracks, slices and instants as the JSON timeline, in a tenth of its size or less.
#pragma once

#include <string>

#include "sim/observe/timeline_model.h"

namespace nicsim::sim {

/**
 * The model as a Perfetto trace (perfetto.protos.Trace: repeated TracePacket packet = 1).
 *
 * Tracks: a TrackDescriptor per adapter with a ProcessDescriptor (pid = adapter id + 1, since
 * pid 0 is the idle process in Perfetto's process model; process_name "adapter N"), and one
 * per model track, a child of its adapter's (parent_uuid) named as in the JSON ("task 3",
 * "dma", "link in", ...) and ordered by the track id (sibling_order_rank).
 *
 * Events: each track is a packet sequence of its own (trusted_packet_sequence_id), so its
 * events carry neither a track uuid (TrackEventDefaults) nor a full timestamp: the sequence's
 * first packet clears its incremental state and defines clock 64, an incremental clock in
 * nanoseconds that starts at BOOTTIME 0, so each later packet's timestamp is the nanoseconds
 * since the previous packet of its track. A slice is a TYPE_SLICE_BEGIN / TYPE_SLICE_END
 * pair, an instant TYPE_INSTANT; names and categories are interned (InternedData, iids shared
 * by all sequences). Args (window, cb, bytes, status, ...) are in the JSON only.
 *
 * Size: the descriptors come first as plain packets; the sequences' packets follow in
 * deflated chunks (TracePacket.compressed_packets, PacketCompressor), which trace_processor
 * and ui.perfetto.dev read as if they were plain.
 *
 * Time: the simulator's picoseconds are truncated to whole nanoseconds (Perfetto's unit).
 * Truncation never reorders: the events of a track keep the model's order, the packets of all
 * tracks are written in time order (ties by track), and a slice shorter than a nanosecond
 * may show as zero-length. The model must be closed (TimelineModel::Close) first.
 */
std::string TimelinePerfetto(const TimelineModel& model);

}  // namespace nicsim::sim
