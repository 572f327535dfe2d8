// SPDX-License-Identifier: Apache-2.0
// Rendezvous messages: the envelope goes first and the bytes only once a receive matched it.
// To another node the transport announces the message with its buffer and the receiver's
// adapter pulls it (one handshake; landing in place in an AllocMem receive buffer); within a
// node, or when the sender holds too much staging memory for announced messages, a request to
// send waits for the receiver's clear to send, and the data follows it.
#pragma once

#include <cstdint>
#include <vector>

#include "ulp/mpi/p2p_protocol.h"
#include "ulp/mpi/p2p_services.h"

namespace nicsim::mpi {

class RendezvousProtocol final : public P2pProtocol {
 public:
  explicit RendezvousProtocol(P2pServices& s) : s_(s) {}

  void Send(const SendCall& call, const Request& r) override;
  /** A request to send (not announced) arrived. */
  void OnArrival(uint32_t context, int source_world, int tag, std::vector<uint8_t> data) override;
  void Receive(UnexpectedMessage& u, const Request& r) override;
  void OnClearToSend(uint64_t id, PendingSend p) override;
  void OnData(const Request& r, int source_world, std::vector<uint8_t> data) override;

  /** The transport announced message `seq` (`total` bytes): matched now, or kept as
   *  unexpected. */
  void OnAnnounced(int source_world, uint32_t wire_context, uint32_t tag, uint64_t total,
                   uint32_t seq);
  /** The bytes of announced message `seq` that this rank accepted came (none: they landed in
   *  place). */
  void OnAccepted(int source_world, uint32_t seq, std::vector<uint8_t> data);

 private:
  /** Accepts announced message `seq` from `source_world` (`bytes` long) into receive `r`,
   *  landing it in r's buffer when that is an AllocMem area it fits. */
  void AcceptAnnounced(int source_world, uint32_t seq, uint64_t bytes, const Request& r);
  /** The bytes of a rendezvous message for `r` came (none: they landed in place). */
  void Landed(const Request& r, int source_world, std::vector<uint8_t> data);

  P2pServices& s_;
};

}  // namespace nicsim::mpi
