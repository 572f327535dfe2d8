// SPDX-License-Identifier: Apache-2.0
// Push-pull between nodes (reference 003, mpi.internode=pushpull): a message pushes its first
// BTP1 bytes with the request and its next BTP2 bytes right behind, without waiting; the
// receiver acknowledges (a clear to send) as soon as the first push meets its receive, and the
// rest follows the acknowledgement, pulled by the receiver's adapter (the transport's RDMA read
// of a large message). Pushed bytes of a receiver that is late wait in the unexpected queue.
// A message pushed whole is an eager one.
#pragma once

#include <cstdint>
#include <vector>

#include "ulp/mpi/eager_protocol.h"
#include "ulp/mpi/p2p_protocol.h"
#include "ulp/mpi/p2p_services.h"

namespace nicsim::mpi {

class PushPullProtocol final : public P2pProtocol {
 public:
  PushPullProtocol(P2pServices& s, EagerProtocol& eager) : s_(s), eager_(eager) {}

  void Send(const SendCall& call, const Request& r) override;
  /** A push arrived: the first is matched (or kept as unexpected), a second is gathered. */
  void OnArrival(uint32_t context, int source_world, int tag, std::vector<uint8_t> data) override;
  /** A late receiver: the pushed bytes waited; the acknowledgement asks for the rest. */
  void Receive(UnexpectedMessage& u, const Request& r) override;
  /** The acknowledgement asks for what the pushes did not carry. */
  void OnClearToSend(uint64_t id, PendingSend p) override;
  /** The rest of a message (nothing if the pushes held it all). */
  void OnData(const Request& r, int source_world, std::vector<uint8_t> data) override;

 private:
  /** Sends one push of message `id`: bytes [offset, offset + len) of `total`. */
  void SendPush(int dest_world, uint32_t context, int tag, uint64_t id, uint64_t total,
                uint64_t pushed, uint64_t offset, const uint8_t* data, uint64_t len);
  /** Receive `r` matched the first push of `rdv_id` from `source_world`, with `len` bytes at
   *  `data`: it gathers the message and acknowledges. */
  void Begin(const Request& r, int source_world, int tag, uint64_t rdv_id, uint64_t total,
             uint64_t pushed, const uint8_t* data, size_t len);
  /** Gathers bytes at `offset`; once all have come, unpacks them and completes the receive. */
  void Gather(const Request& r, int source_world, uint64_t offset, const uint8_t* data, size_t len);

  P2pServices& s_;
  EagerProtocol& eager_;
};

}  // namespace nicsim::mpi
