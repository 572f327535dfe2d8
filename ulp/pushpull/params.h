// SPDX-License-Identifier: Apache-2.0
// The push-pull protocol's knobs as run parameters (pushpull.*), declared beside Params: their
// defaults are its members'. Cross-field rules stay in Params::Validate.
#pragma once

#include "base/params.h"
#include "ulp/pushpull/config.h"

namespace nicsim::ulp::pushpull {

inline const ParamDecls<Params>& PushPullParams() {
  using C = Params;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Enum("pushpull.mode", &C::mode,
                  {{Mode::kPushPull, "push_pull"},
                   {Mode::kPushAll, "push_all"},
                   {Mode::kPushZero, "push_zero"}},
                  "The push-pull protocol (reference 003; mpi.intranode=pushpull inside a node, "
                  "and mpi.internode=pushpull between nodes, which uses the mode and the two "
                  "push sizes): "
                  "push_pull pushes pushpull.btp1_bytes, then pushpull.btp2_bytes more without "
                  "waiting for the acknowledgement, and the receiver pulls the rest; push_all "
                  "pushes every byte; push_zero pushes only a header and pulls every byte")
           .Int("pushpull.btp1_bytes", &C::btp1_bytes, 0, 1 << 20,
                "The push-pull protocol: bytes of a message's first push (BTP1), sent before "
                "the receiver has asked for anything; 0 = a header-only first push")
           .Int("pushpull.btp2_bytes", &C::btp2_bytes, 0, 1 << 20,
                "The push-pull protocol: bytes of the second push (BTP2), sent while the first "
                "push's acknowledgement travels; bytes past BTP1 + BTP2 are pulled")
           .Int("pushpull.push_all_chunk_bytes", &C::push_all_chunk_bytes, 1, 1 << 20,
                "The push-pull protocol, pushpull.mode=push_all: bytes each pushed chunk "
                "carries")
           .Int("pushpull.pushed_slots", &C::pushed_slots, 1, 1024,
                "The push-pull protocol: slots of each (sender, receiver) pushed buffer; a "
                "sender whose slots are all unread waits, it never drops")
           .Size("pushpull.pull_round_bytes", &C::pull_round_bytes,
                 "The push-pull protocol: most bytes one pull request moves (a long message is "
                 "pulled in rounds of this size)")
           .Range(static_cast<int64_t>(kPageBytes), static_cast<int64_t>(kMaxPullRoundBytes));
  return *decls;
}

}  // namespace nicsim::ulp::pushpull
