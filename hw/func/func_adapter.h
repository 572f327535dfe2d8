// SPDX-License-Identifier: Apache-2.0
// The functional adapter: the adapter model with its default, nominal timing. Untimed in
// spirit (every cost is a fixed parameter), deterministic, and the fastest backend.
#pragma once

#include "hw/func/adapter_model.h"

namespace nicsim::hw::func {

/** One adapter of the functional backend. */
class FuncAdapter final : public AdapterModel {
 public:
  using AdapterModel::AdapterModel;
};

}  // namespace nicsim::hw::func
