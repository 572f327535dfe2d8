// SPDX-License-Identifier: Apache-2.0
// The communicators' topologies, and MPI's Cartesian calls: MPI_Dims_create, MPI_Cart_*,
// MPI_Topo_test. A topology lives in this file's table, keyed by the communicator's handle,
// and is made on top of MPI_Comm_split: reorder is accepted and ignored (each process keeps
// its rank), which MPI allows and which keeps the simulator's placement of ranks as it is.
#include <map>
#include <string>
#include <utility>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/object_hooks.h"
#include "ulp/mpi/capi/topology.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace nicsim::mpi::capi {
namespace {

/** Every communicator's topology. Never destroyed: an atexit handler may still call MPI. */
std::map<MPI_Comm, Topology>& Table() {
  static auto* table = new std::map<MPI_Comm, Topology>();
  return *table;
}

}  // namespace

const Topology* FindTopology(MPI_Comm comm) {
  if (C().Comm(comm) == nullptr) return nullptr;
  const auto it = Table().find(comm);
  return it == Table().end() ? nullptr : &it->second;
}

int AttachTopology(MPI_Comm comm, Topology topology) {
  // A split with one color, not a dup: a dup would run the attribute copy callbacks of a
  // communicator MPI_Comm_dup has just copied them onto, a second time.
  MPI_Comm channel = MPI_COMM_NULL;
  const int code = MPI_Comm_split(comm, 0, C().Comm(comm)->rank, &channel);
  if (code != MPI_SUCCESS) return code;
  topology.channel = channel;
  Table()[comm] = std::move(topology);
  return MPI_SUCCESS;
}

int CheckTopologyBase(MPI_Comm comm, const char* call) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  if (C().Comm(comm)->inter) {
    return C().Error(comm, MPI_ERR_COMM, call, "an intercommunicator has no topology");
  }
  return MPI_SUCCESS;
}

int NeedTopology(MPI_Comm comm, int kind, const char* call, const Topology** topology) {
  NICSIM_MPI_TRY(CheckComm(comm, call));
  *topology = FindTopology(comm);
  if (*topology == nullptr) {
    return C().Error(comm, MPI_ERR_TOPOLOGY, call, "the communicator has no topology");
  }
  if (kind != MPI_UNDEFINED && (*topology)->kind != kind) {
    static const char* const kNames[] = {"", "a graph", "a Cartesian", "a distributed graph"};
    return C().Error(comm, MPI_ERR_TOPOLOGY, call,
                     std::string("the communicator's topology is not ") + kNames[kind] + " one");
  }
  return MPI_SUCCESS;
}

void CopyCommTopology(MPI_Comm old, MPI_Comm made) {
  const Topology* t = FindTopology(old);
  if (t == nullptr || C().Comm(made) == nullptr) return;
  Topology copy = *t;
  copy.channel = MPI_COMM_NULL;
  AttachTopology(made, std::move(copy));
}

void ForgetCommTopology(MPI_Comm comm) {
  const auto it = Table().find(comm);
  if (it == Table().end()) return;
  MPI_Comm channel = it->second.channel;
  Table().erase(it);
  if (C().Comm(channel) != nullptr) MPI_Comm_free(&channel);
}

int CartRankOf(const Topology& topology, const int coords[]) {
  int rank = 0;
  for (size_t i = 0; i < topology.dims.size(); ++i) {
    const int extent = topology.dims[i];
    int c = coords[i];
    if (topology.periods[i]) {
      c = (c % extent + extent) % extent;
    } else if (c < 0 || c >= extent) {
      return -1;
    }
    rank = rank * extent + c;
  }
  return rank;
}

std::vector<int> CartCoordsOf(const Topology& topology, int rank) {
  std::vector<int> coords(topology.dims.size());
  for (size_t i = coords.size(); i-- > 0;) {
    coords[i] = rank % topology.dims[i];
    rank /= topology.dims[i];
  }
  return coords;
}

Neighbourhood NeighboursOf(const Topology& topology, int rank) {
  Neighbourhood n;
  if (topology.kind == MPI_CART) {
    // Per dimension the negative neighbour, then the positive one. What a process sends
    // towards its negative neighbour lands in that neighbour's positive slot: the tag names
    // the direction of travel, so the two slots stay apart when both are the same process
    // (a periodic dimension of 1 or 2).
    const std::vector<int> coords = CartCoordsOf(topology, rank);
    for (size_t d = 0; d < coords.size(); ++d) {
      for (int step : {-1, 1}) {
        std::vector<int> at = coords;
        at[d] += step;
        const int peer = CartRankOf(topology, at.data());
        const int toward = static_cast<int>(2 * d) + (step > 0 ? 1 : 0);
        n.sources.push_back(peer < 0 ? MPI_PROC_NULL : peer);
        n.recv_tags.push_back(toward ^ 1);
        n.destinations.push_back(peer < 0 ? MPI_PROC_NULL : peer);
        n.send_tags.push_back(toward);
      }
    }
  } else if (topology.kind == MPI_GRAPH) {
    // Messages between two processes pair up in order: the k-th edge to a neighbour with the
    // k-th edge back from it.
    const int first = rank == 0 ? 0 : topology.index[rank - 1];
    n.sources.assign(topology.edges.begin() + first, topology.edges.begin() + topology.index[rank]);
    n.destinations = n.sources;
  } else {
    n.sources = topology.sources;
    n.destinations = topology.destinations;
  }
  n.recv_tags.resize(n.sources.size(), 0);
  n.send_tags.resize(n.destinations.size(), 0);
  return n;
}

}  // namespace nicsim::mpi::capi

namespace {

/** A grid's shape: MPI_ERR_DIMS for a bad dimension, MPI_ERR_ARG if `comm` cannot hold it. */
int CheckGrid(MPI_Comm comm, int ndims, const int dims[], const int periods[], const char* call,
              int* nodes) {
  if (ndims < 0) return C().Error(comm, MPI_ERR_DIMS, call, "negative number of dimensions");
  if (ndims > 0 && (dims == nullptr || periods == nullptr)) {
    return C().Error(comm, MPI_ERR_ARG, call, "no dims or periods array");
  }
  const int size = C().Comm(comm)->size;
  long long product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) {
      return C().Error(comm, MPI_ERR_DIMS, call,
                       "dims[" + std::to_string(i) + "] is " + std::to_string(dims[i]));
    }
    product *= dims[i];
    if (product > size) {
      return C().Error(comm, MPI_ERR_ARG, call,
                       "the grid has more points than the communicator's " + std::to_string(size) +
                           " processes");
    }
  }
  *nodes = static_cast<int>(product);
  return MPI_SUCCESS;
}

/** The first `nodes` processes of `comm` (in rank order) make the grid; the others get null. */
int MakeCart(MPI_Comm comm, int ndims, const int dims[], const int periods[], int nodes,
             MPI_Comm* made) {
  const int rank = C().Comm(comm)->rank;
  NICSIM_MPI_TRY(MPI_Comm_split(comm, rank < nodes ? 0 : MPI_UNDEFINED, rank, made));
  if (*made == MPI_COMM_NULL) return MPI_SUCCESS;
  Topology t;
  t.kind = MPI_CART;
  for (int i = 0; i < ndims; ++i) {
    t.dims.push_back(dims[i]);
    t.periods.push_back(periods[i] != 0);
  }
  return AttachTopology(*made, std::move(t));
}

/**
 * MPI_Dims_create's search: the non-decreasing factors of `n` into `parts` numbers, each at
 * least `low`, with the least spread between the largest and the smallest. Numbers of
 * processes have few divisors, so trying every factorisation in order is cheap.
 */
void Balance(int n, int parts, int low, std::vector<int>* picked, std::vector<int>* best,
             int* best_spread) {
  if (parts == 1) {
    if (n < low) return;
    const int spread = n - (picked->empty() ? n : picked->front());
    if (spread < *best_spread) {
      *best = *picked;
      best->push_back(n);
      *best_spread = spread;
    }
    return;
  }
  // The next factor is the smallest of those left: at most the parts-th root of n.
  for (int d = low; d <= n; ++d) {
    long long power = 1;
    for (int i = 0; i < parts && power <= n; ++i) power *= d;
    if (power > n) break;
    if (n % d != 0) continue;
    picked->push_back(d);
    Balance(n / d, parts - 1, d, picked, best, best_spread);
    picked->pop_back();
  }
}

}  // namespace

extern "C" {

int MPI_Topo_test(MPI_Comm comm, int* status) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Topo_test"));
  const Topology* t = FindTopology(comm);
  *status = t == nullptr ? MPI_UNDEFINED : t->kind;
  return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  static const char* const kCall = "MPI_Dims_create";
  if (nnodes <= 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, kCall, "nnodes is not positive");
  if (ndims < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_DIMS, kCall, "negative ndims");
  if (ndims == 0) return MPI_SUCCESS;
  if (dims == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, kCall, "no dims array");
  long long fixed = 1;
  int free = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) {
      return C().Error(MPI_COMM_WORLD, MPI_ERR_DIMS, kCall,
                       "dims[" + std::to_string(i) + "] is negative");
    }
    if (dims[i] == 0) {
      ++free;
    } else if ((fixed *= dims[i]) > nnodes) {
      fixed = nnodes + 1LL;  // cannot divide; stays too large without overflowing
    }
  }
  if (nnodes % fixed != 0) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_DIMS, kCall,
                     std::to_string(nnodes) + " nodes do not fit the given dimensions");
  }
  if (free == 0) return MPI_SUCCESS;
  std::vector<int> picked, best;
  int spread = nnodes;
  Balance(static_cast<int>(nnodes / fixed), free, 1, &picked, &best, &spread);
  // `best` grows; MPI wants the dimensions it sets non-increasing.
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] == 0) {
      dims[i] = best.back();
      best.pop_back();
    }
  }
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int /*reorder*/, MPI_Comm* comm_cart) {
  static const char* const kCall = "MPI_Cart_create";
  NICSIM_MPI_TRY(CheckTopologyBase(comm_old, kCall));
  int nodes = 0;
  NICSIM_MPI_TRY(CheckGrid(comm_old, ndims, dims, periods, kCall, &nodes));
  return MakeCart(comm_old, ndims, dims, periods, nodes, comm_cart);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  NICSIM_MPI_TRY(CheckTopologyBase(comm, "MPI_Cart_map"));
  int nodes = 0;
  NICSIM_MPI_TRY(CheckGrid(comm, ndims, dims, periods, "MPI_Cart_map", &nodes));
  const int rank = C().Comm(comm)->rank;
  *newrank = rank < nodes ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cartdim_get", &t));
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cart_get", &t));
  const int n = static_cast<int>(t->dims.size());
  if (maxdims < n) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_get",
                     "maxdims " + std::to_string(maxdims) + " < " + std::to_string(n));
  }
  const std::vector<int> at = CartCoordsOf(*t, C().Comm(comm)->rank);
  for (int i = 0; i < n; ++i) {
    dims[i] = t->dims[i];
    periods[i] = t->periods[i];
    coords[i] = at[i];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cart_rank", &t));
  if (!t->dims.empty() && coords == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_rank", "no coords array");
  }
  const int r = CartRankOf(*t, coords);
  if (r < 0) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_rank",
                     "coordinates off the grid in a dimension that is not periodic");
  }
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cart_coords", &t));
  if (rank < 0 || rank >= C().Comm(comm)->size) {
    return C().Error(comm, MPI_ERR_RANK, "MPI_Cart_coords", "rank " + std::to_string(rank));
  }
  const int n = static_cast<int>(t->dims.size());
  if (maxdims < n) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_coords",
                     "maxdims " + std::to_string(maxdims) + " < " + std::to_string(n));
  }
  const std::vector<int> at = CartCoordsOf(*t, rank);
  for (int i = 0; i < n; ++i) coords[i] = at[i];
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cart_shift", &t));
  if (direction < 0 || static_cast<size_t>(direction) >= t->dims.size()) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_shift",
                     "direction " + std::to_string(direction) + " of " +
                         std::to_string(t->dims.size()) + " dimensions");
  }
  std::vector<int> at = CartCoordsOf(*t, C().Comm(comm)->rank);
  const int here = at[direction];
  // In 64 bits: disp may be as large as an int goes.
  const long long extent = t->dims[direction];
  const auto peer = [&](long long c) {
    if (t->periods[direction]) {
      c = (c % extent + extent) % extent;
    } else if (c < 0 || c >= extent) {
      return MPI_PROC_NULL;
    }
    at[direction] = static_cast<int>(c);
    return CartRankOf(*t, at.data());
  };
  *rank_source = peer(static_cast<long long>(here) - disp);
  *rank_dest = peer(static_cast<long long>(here) + disp);
  return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_CART, "MPI_Cart_sub", &t));
  if (!t->dims.empty() && remain_dims == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Cart_sub", "no remain_dims array");
  }
  // The processes that agree on the dropped coordinates share a subgrid, ordered by the
  // kept ones (which is their order in `comm` too).
  const std::vector<int> at = CartCoordsOf(*t, C().Comm(comm)->rank);
  Topology sub;
  sub.kind = MPI_CART;
  int color = 0, key = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    if (remain_dims[i]) {
      key = key * t->dims[i] + at[i];
      sub.dims.push_back(t->dims[i]);
      sub.periods.push_back(t->periods[i]);
    } else {
      color = color * t->dims[i] + at[i];
    }
  }
  if (sub.dims.empty()) {
    // No dimension kept: a zero-dimensional grid, one process (as MPICH makes it: the first).
    return MakeCart(comm, 0, nullptr, nullptr, 1, newcomm);
  }
  NICSIM_MPI_TRY(MPI_Comm_split(comm, color, key, newcomm));
  return AttachTopology(*newcomm, std::move(sub));
}

}  // extern "C"
