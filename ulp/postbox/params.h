// SPDX-License-Identifier: Apache-2.0
// The postbox protocol's sizes as run parameters (postbox.*), declared beside Params: their
// defaults are its members'. Cross-field rules stay in Params::Validate.
#pragma once

#include "base/params.h"
#include "ulp/postbox/config.h"

namespace nicsim::ulp::postbox {

inline const ParamDecls<Params>& PostboxParams() {
  using C = Params;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int(
               "postbox.piece_bytes", &C::piece_bytes, 8, 1 << 20,
               "mpi.intranode=postbox: the cyclic transaction size: a message longer than "
               "postbox.inline_bytes crosses in pieces of this many bytes, one pool block each (a "
               "multiple of 8)")
           .Int("postbox.pool_blocks", &C::pool_blocks, 1, 4096,
                "mpi.intranode=postbox: buffer blocks in the pool of each sender's segment")
           .Int("postbox.slots_per_receiver", &C::slots_per_receiver, 1, 4096,
                "mpi.intranode=postbox: postbox slots a sender has per receiver (postings not yet "
                "acknowledged)")
           .Int("postbox.inline_bytes", &C::inline_bytes, 0, 4096,
                "mpi.intranode=postbox: messages of at most this many bytes travel inside their "
                "postbox slot, with no block")
           .Int("postbox.receiver_quota_blocks", &C::receiver_quota_blocks, 0, 4096,
                "mpi.intranode=postbox: blocks of one pool a single receiver may hold "
                "unacknowledged "
                "(at most postbox.pool_blocks); 0 = pool_blocks / the processes the sender may "
                "send to through the pool (those of the receiving node but itself), at least 1; a "
                "sender over quota waits, it never drops");
  return *decls;
}

}  // namespace nicsim::ulp::postbox
