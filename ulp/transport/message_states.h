// SPDX-License-Identifier: Apache-2.0
// Where a message is in its life, on each side of the transport, with a name table per side:
// Transport::MessagesByState, tests and diagnostics read the names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nicsim::ulp {

/** Where a message being sent is in its life. */
enum class OutState : uint8_t {
  /** Its fragments go in packet mode; it ends when all are acknowledged. */
  kEager,
  /** Its RTS offers the registered buffer; the receiver pulls it by RDMA. */
  kOffered,
  /** The receiver gave up pulling: its fragments are pushed in packet mode. */
  kPushed,
  /** The receiver said its pull is done. */
  kDone,
  /** It went by one RDMA write into the receiver's eager ring; it ends when the receiver
   *  acknowledges its delivery. */
  kRing,
  kCount,
};

/** Where a message being received is in its life. */
enum class InState : uint8_t {
  /** Its fragments arrive in packet mode. */
  kFragments,
  /** An RTS came: it is pulled by RDMA reads. */
  kPulling,
  /** The pull was given up: the sender pushes the fragments. */
  kPushed,
  /** Every byte is here; it waits for its turn to be delivered. */
  kComplete,
  /** Its RTS awaits the upper layer's accept (kRtsAwaitsAccept), which the announcement asks
   *  for in its turn; it is pulled (or pushed) once accepted. */
  kAnnounced,
  kCount,
};

/** Each OutState's name, in enum order ("out.<name>" in Transport::MessagesByState). */
inline constexpr std::array<std::string_view, static_cast<size_t>(OutState::kCount)>
    kOutStateNames = {"eager", "offered", "pushed", "done", "ring"};

/** Each InState's name, in enum order ("in.<name>" in Transport::MessagesByState). */
inline constexpr std::array<std::string_view, static_cast<size_t>(InState::kCount)> kInStateNames =
    {"fragments", "pulling", "pushed", "complete", "announced"};

constexpr std::string_view ToString(OutState s) { return kOutStateNames[static_cast<size_t>(s)]; }
constexpr std::string_view ToString(InState s) { return kInStateNames[static_cast<size_t>(s)]; }

/** Messages of one side counted per state, indexed by the state. */
using OutStateCounts = std::array<uint32_t, static_cast<size_t>(OutState::kCount)>;
using InStateCounts = std::array<uint32_t, static_cast<size_t>(InState::kCount)>;

}  // namespace nicsim::ulp
