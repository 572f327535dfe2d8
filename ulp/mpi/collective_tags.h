// SPDX-License-Identifier: Apache-2.0
// The tags collectives send with, one per kind, in each communicator's collective context
// (which user messages never use): a message of one collective never matches another's receive.
#pragma once

namespace nicsim::mpi {

enum CollTag : int {
  kBarrierTag = 1,
  kBcastTag,
  kReduceTag,
  kGatherTag,
  kScatterTag,
  kAlltoallTag,
  kReduceToRootTag,
  kGathervTag,
  kScattervTag,
  kAlltoallvTag,
  kScanTag,
  kAllgatherRingTag,
  kBcastScatterTag,
  kReduceScatterRingTag,
};

}  // namespace nicsim::mpi
