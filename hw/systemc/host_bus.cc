// SPDX-License-Identifier: Apache-2.0
// Host bus target. Freed memory answers with a generic error so the adapter can count the
// use-after-free apart from an address outside memory.
#include "hw/systemc/host_bus.h"

#include <vector>

namespace nicsim::hw::systemc {

HostBus::HostBus(sc_core::sc_module_name name, host::HostMemory& memory, uint64_t latency_ps,
                 double ps_per_byte, CoherencePoint& coherence)
    : sc_core::sc_module(name),
      socket("socket"),
      memory_(memory),
      latency_ps_(latency_ps),
      ps_per_byte_(ps_per_byte),
      coherence_(coherence) {
  socket.register_b_transport(this, &HostBus::BTransport);
}

void HostBus::BTransport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  host::HostMemory::Access access;
  delay += sc_core::sc_time::from_value(latency_ps_ + TransferPs(len));
  if (trans.is_write()) {
    access = memory_.CheckDeviceWrite(addr, len);
    if (access == host::HostMemory::Access::kOk) {
      // The bytes land at the point of coherence, the end of the annotated time.
      const uint64_t coherent_ps = (sc_core::sc_time_stamp() + delay).value();
      coherence_.WriteAt(coherent_ps, addr, trans.get_data_ptr(), len);
    }
  } else if (trans.is_read()) {
    access = memory_.DeviceRead(addr, trans.get_data_ptr(), len);
  } else {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  switch (access) {
    case host::HostMemory::Access::kOk:
      trans.set_response_status(tlm::TLM_OK_RESPONSE);
      break;
    case host::HostMemory::Access::kOutOfRange:
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      break;
    case host::HostMemory::Access::kFreed:
      trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      break;
  }
}

}  // namespace nicsim::hw::systemc
