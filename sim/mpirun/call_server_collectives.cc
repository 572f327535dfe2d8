// SPDX-License-Identifier: Apache-2.0
// The call server's collectives that move data: each gathers its result in a buffer of its
// own, which a call whose result this process cannot hold fails with MPI_ERR_NO_MEM.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "sim/mpirun/call_server.h"

namespace nicsim::sim {
namespace {

using mpi::kByte;
using mpi::wire::Call;

/** A buffer a call's result is gathered in. */
using Buffer = std::unique_ptr<uint8_t[]>;
/** `n` zeroed bytes, or null if this process cannot hold them. */
Buffer ZeroedBuffer(uint64_t n) { return CallBuffer(n, /*zeroed=*/true); }

}  // namespace

bool CallServer::Collective(Call call, const calls::Args& args, Writer& out) {
  switch (call) {
    case Call::kBcast: {
      const auto& a = std::get<calls::Bcast>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.root >= c->size()) return false;
      Buffer buf = ZeroedBuffer(a.bytes);
      if (buf == nullptr) return NoMemory(out);
      if (c->rank == a.root)
        std::memcpy(buf.get(), a.data.data, std::min<size_t>(a.data.size, a.bytes));
      mpi_.Bcast(buf.get(), a.bytes, kByte, a.root, *c);
      out.Blob(buf.get(), c->rank == a.root ? 0 : a.bytes);
      return true;
    }
    case Call::kReduce:
    case Call::kAllreduce:
    case Call::kScan: {
      const auto& a = std::get<calls::Reduce>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.root >= c->size()) return false;
      const mpi::Combiner combine = CombinerOf(a.reduction);
      Buffer result = ZeroedBuffer(a.data.size);
      if (result == nullptr) return NoMemory(out);
      size_t bytes = a.data.size;
      if (call == Call::kReduce) {
        mpi_.ReduceBytes(a.data.data, result.get(), bytes, combine, a.root, *c);
        if (c->rank != a.root) bytes = 0;
      } else if (call == Call::kAllreduce) {
        mpi_.AllreduceBytes(a.data.data, result.get(), bytes, combine, *c);
      } else {
        mpi_.Scan(a.data.data, result.get(), bytes, combine, a.exclusive, *c);
      }
      out.Blob(result.get(), bytes);
      return true;
    }
    case Call::kGatherv: {
      const auto& a = std::get<calls::Gatherv>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.root >= c->size()) return false;
      if (c->rank == a.root && a.counts.each.size() != static_cast<size_t>(c->size())) return false;
      Buffer all = ZeroedBuffer(a.counts.total);
      if (all == nullptr) return NoMemory(out);
      mpi_.Gatherv(a.data.data, a.data.size, all.get(), a.counts.each, a.root, *c);
      out.Blob(all.get(), a.counts.total);
      return true;
    }
    case Call::kScatterv: {
      const auto& a = std::get<calls::Scatterv>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.root >= c->size()) return false;
      if (c->rank == a.root && (a.counts.each.size() != static_cast<size_t>(c->size()) ||
                                a.counts.total > a.data.size)) {
        return false;
      }
      Buffer mine = ZeroedBuffer(a.room);
      if (mine == nullptr) return NoMemory(out);
      mpi_.Scatterv(a.data.data, a.counts.each, mine.get(), a.room, a.root, *c);
      out.Blob(mine.get(), a.room);
      return true;
    }
    case Call::kAllgatherv: {
      const auto& a = std::get<calls::Allgatherv>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.counts.each.size() != static_cast<size_t>(c->size())) return false;
      Buffer all = ZeroedBuffer(a.counts.total);
      if (all == nullptr) return NoMemory(out);
      mpi_.Allgatherv(a.data.data, a.data.size, all.get(), a.counts.each, *c);
      out.Blob(all.get(), a.counts.total);
      return true;
    }
    case Call::kAlltoallv: {
      const auto& a = std::get<calls::Alltoallv>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.send.each.size() != static_cast<size_t>(c->size()) ||
          a.receive.each.size() != a.send.each.size() || a.send.total > a.data.size) {
        return false;
      }
      Buffer all = ZeroedBuffer(a.receive.total);
      if (all == nullptr) return NoMemory(out);
      mpi_.Alltoallv(a.data.data, a.send.each, all.get(), a.receive.each, *c);
      out.Blob(all.get(), a.receive.total);
      return true;
    }
    case Call::kReduceScatter: {
      const auto& a = std::get<calls::ReduceScatter>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.counts.each.size() != static_cast<size_t>(c->size()) ||
          a.counts.total != a.data.size) {
        return false;
      }
      const size_t bytes = a.counts.each[static_cast<size_t>(c->rank)];
      Buffer mine = ZeroedBuffer(bytes);
      if (mine == nullptr) return NoMemory(out);
      mpi_.ReduceScatter(a.data.data, mine.get(), a.counts.each, CombinerOf(a.reduction), *c);
      out.Blob(mine.get(), bytes);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace nicsim::sim
