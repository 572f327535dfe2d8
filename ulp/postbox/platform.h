// SPDX-License-Identifier: Apache-2.0
// The postbox engines' only view of the operating system: the store of named segments that
// the shared-memory engines share (ulp/segments).
#pragma once

#include "ulp/segments/segment_store.h"

namespace nicsim::ulp::postbox {

using Mapping = segments::Mapping;
using Platform = segments::SegmentStore;

}  // namespace nicsim::ulp::postbox
