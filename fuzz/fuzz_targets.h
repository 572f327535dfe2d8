// SPDX-License-Identifier: Apache-2.0
// The fuzz targets: one function per input format, each returning 0 for any input. A bug
// shows as a crash, a sanitizer report or a broken invariant (NICSIM_CHECK), never as a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nicsim::fuzz {

/**
 * The wire-frame codec (hw/common/frame_codec): the CRC check of arbitrary bytes, and
 * header + payload re-encoded from them must check and round-trip byte for byte.
 */
int FuzzFrameCodec(const uint8_t* data, size_t size);

/**
 * The microcode's receive path for RDMA packets on the functional adapter (hw/func): a
 * sequence of frames, each optionally aimed at the live window, rCxts and registered buffer
 * (fuzz/rdma_rx_fuzz.cc has the format), goes in through the link; afterwards the adapter must
 * be idle with every task, DTB and header buffer back.
 */
int FuzzRdmaRx(const uint8_t* data, size_t size);

/** The DPDK port's Ethernet decoder (hw/dpdk/ether_frame), with the MTU taken from the input. */
int FuzzEtherFrame(const uint8_t* data, size_t size);

/** ParseScenario on arbitrary TOML text: any error must be a Status. */
int FuzzScenario(const uint8_t* data, size_t size);

/** ApplySetFlag with arbitrary "key=value" lines (one per line): any error must be a Status. */
int FuzzSetFlag(const uint8_t* data, size_t size);

/** The golden-trace reader: two traces (split at the first NUL) read, compared and reported. */
int FuzzTraceDiff(const uint8_t* data, size_t size);

/**
 * The decoder of what a rank's program sends on its channel (sim/mpirun/call_decoder): the
 * messages as they come; a decoded call encodes back into its arguments byte for byte.
 */
int FuzzRankChannel(const uint8_t* data, size_t size);

/** A fuzz target by name (as in tests/fuzz/corpus/<name>/). */
struct FuzzTarget {
  std::string_view name;
  int (*fn)(const uint8_t* data, size_t size);
};

/** Every target, in the order scripts/fuzz.sh runs them. */
inline constexpr FuzzTarget kFuzzTargets[] = {
    {"frame_codec", FuzzFrameCodec},   {"rdma_rx", FuzzRdmaRx},   {"ether_frame", FuzzEtherFrame},
    {"scenario", FuzzScenario},        {"set_flag", FuzzSetFlag}, {"trace_diff", FuzzTraceDiff},
    {"rank_channel", FuzzRankChannel},
};

}  // namespace nicsim::fuzz
