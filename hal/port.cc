// SPDX-License-Identifier: Apache-2.0
#include "hal/port.h"

#include <algorithm>

#include "base/check.h"

namespace nicsim::hal {

uint32_t Port::max_payload() const {
  Endpoint* e = endpoint_();
  NICSIM_CHECK(e != nullptr, "window %u on adapter %u is not open", self_.window, self_.adapter);
  return std::min(e->max_payload(), payload_cap_);
}

SendTicket Port::Send(Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) {
  Endpoint* e = endpoint_();
  if (e == nullptr || !e->Send(dest, data, len, ulp_word)) return {};  // a lost packet
  return SendTicket{e->serial(), e->given()};
}

bool Port::Transmitted(const SendTicket& ticket) const {
  const Endpoint* e = endpoint_();
  if (e == nullptr || ticket.place == 0 || e->serial() != ticket.endpoint) return true;
  return e->Transmitted(ticket.place);
}

void Port::Post(abi::SlotType type, Peer dest, const abi::RdmaRequest& request, uint32_t ulp_word) {
  if (Endpoint* e = endpoint_()) e->PostRequest(type, dest, request, ulp_word);
}

void Port::OnReceive(ReceiveFn fn) {
  Endpoint* e = endpoint_();
  if (e == nullptr) return;
  if (!fn) {
    e->OnReceive(nullptr);
    return;
  }
  if (!on_activity_) {
    e->OnReceive([fn = std::move(fn)](const RecvPacket& p) { fn(p.header, p.payload); });
    return;
  }
  e->OnReceive([fn = std::move(fn), activity = on_activity_](const RecvPacket& p) {
    activity();
    fn(p.header, p.payload);
  });
}

Result<uint32_t> Port::AcquireRcxt() { return rcxts_()->Acquire(self_.window); }

Result<uint32_t> Port::AcquireGroupRcxt(std::optional<uint32_t> index) {
  if (!index) return rcxts_()->Acquire(self_.window, true);
  return rcxts_()->AcquireIndex(*index, self_.window, true);
}

abi::RcxtRecord Port::ReadRcxt(uint32_t ref) { return rcxts_()->Read(abi::RcxtIndex(ref)); }

void Port::ReleaseRcxt(uint32_t ref) {
  // After an adapter recovery the reference is stale; the pool refuses it, which is fine.
  static_cast<void>(rcxts_()->Release(ref));
}

Result<uint32_t> Port::AcquireConditionalQueue() { return rcxts_()->AcquireQueue(); }

void Port::ReleaseConditionalQueue(uint32_t queue) { rcxts_()->ReleaseQueue(queue); }

}  // namespace nicsim::hal
