// SPDX-License-Identifier: Apache-2.0
// Eager messages: the bytes travel with the envelope, copied out of the program's buffer, so
// the send is complete for the program as soon as the copy is; a receiver that is late finds
// them in the unexpected queue.
#pragma once

#include <cstdint>
#include <vector>

#include "ulp/mpi/p2p_protocol.h"
#include "ulp/mpi/p2p_services.h"

namespace nicsim::mpi {

class EagerProtocol final : public P2pProtocol {
 public:
  explicit EagerProtocol(P2pServices& s) : s_(s) {}

  void Send(const SendCall& call, const Request& r) override;
  /** Sends `bytes`, packed already, eagerly for `r`. */
  void SendPacked(const Request& r, int dest_world, uint32_t context, int tag,
                  std::vector<uint8_t> bytes);
  void OnArrival(uint32_t context, int source_world, int tag, std::vector<uint8_t> data) override;
  void Receive(UnexpectedMessage& u, const Request& r) override;
  /** An eager message has no handshake: neither of these comes. */
  void OnClearToSend(uint64_t id, PendingSend p) override;
  void OnData(const Request& r, int source_world, std::vector<uint8_t> data) override;

 private:
  P2pServices& s_;
};

}  // namespace nicsim::mpi
