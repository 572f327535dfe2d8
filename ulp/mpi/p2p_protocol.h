// SPDX-License-Identifier: Apache-2.0
// One way a point-to-point message travels between two ranks: eager (the bytes with the
// envelope), rendezvous (the envelope first, the bytes once a receive matched), push-pull
// (some bytes with the envelope, the rest once a receive matched). A protocol sends a message
// and handles its own messages at the receiver; PointToPoint picks the protocol per message
// and routes what arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ulp/mpi/datatype.h"
#include "ulp/mpi/matcher.h"
#include "ulp/mpi/rendezvous_table.h"
#include "ulp/mpi/request.h"

namespace nicsim::mpi {

/** A send as the program asked for it, with the destination as a world rank. */
struct SendCall {
  const void* buf;
  size_t count;
  const Datatype* type;
  int dest_world;
  int tag;
  uint32_t context;
  /** Complete only once a receive matched it. */
  bool synchronous;
  size_t bytes() const { return count * type->size(); }
};

class P2pProtocol {
 public:
  virtual ~P2pProtocol() = default;

  /** Starts `call` for request `r`; the program's call returns once its copies are done. */
  virtual void Send(const SendCall& call, const Request& r) = 0;
  /** A message of this protocol that receives match (an eager message, a request to send)
   *  arrived: it goes to the oldest posted receive it matches, or waits as unexpected. */
  virtual void OnArrival(uint32_t context, int source_world, int tag,
                         std::vector<uint8_t> data) = 0;
  /** Receive `r`, posted by the program now, takes unexpected message `u` of this protocol. */
  virtual void Receive(UnexpectedMessage& u, const Request& r) = 0;
  /** The receiver cleared pending send `id` to send its data. */
  virtual void OnClearToSend(uint64_t id, PendingSend p) = 0;
  /** The data of a message this rank cleared to send came for receive `r`. */
  virtual void OnData(const Request& r, int source_world, std::vector<uint8_t> data) = 0;
};

}  // namespace nicsim::mpi
