// SPDX-License-Identifier: Apache-2.0
// A fabric port for single-adapter tests: every frame goes back to the adapter it left,
// arriving at its departure time.
#pragma once

#include "hw/common/link.h"
#include "kernel/event_queue.h"
#include "hw/func/adapter_model.h"

namespace nicsim::testing {

/** Delivers every frame back to the adapter it left, at its departure time. */
class LoopbackPort final : public hw::FabricLink {
 public:
  LoopbackPort(hw::func::AdapterModel& adapter, kernel::EventQueue& events)
      : adapter_(adapter), events_(events) {}
  void Send(hw::Frame frame, uint64_t depart_ps) override {
    events_.At(depart_ps,
               [this, f = std::move(frame)]() mutable { adapter_.Receive(std::move(f)); });
  }

 private:
  hw::func::AdapterModel& adapter_;
  kernel::EventQueue& events_;
};

}  // namespace nicsim::testing
