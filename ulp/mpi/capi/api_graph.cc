// SPDX-License-Identifier: Apache-2.0
// MPI's graph topologies: MPI_Graph_* (every process gives, and keeps, the whole graph) and
// MPI_Dist_graph_* (each process gives some edges and keeps only its own neighbours). As
// with the Cartesian ones (api_topo.cc), reorder is ignored and info is not read.
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/topology.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** MPI_Graph_create's graph: `index` non-decreasing from 0, each edge a node of the graph. */
int CheckGraph(MPI_Comm comm, int nnodes, const int index[], const int edges[], const char* call) {
  const int size = C().Comm(comm)->size;
  if (nnodes < 0 || nnodes > size) {
    return C().Error(
        comm, MPI_ERR_ARG, call,
        "nnodes " + std::to_string(nnodes) + " for " + std::to_string(size) + " processes");
  }
  if (nnodes > 0 && index == nullptr) return C().Error(comm, MPI_ERR_ARG, call, "no index array");
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < (i == 0 ? 0 : index[i - 1])) {
      return C().Error(comm, MPI_ERR_ARG, call,
                       "index[" + std::to_string(i) + "] is " + std::to_string(index[i]));
    }
  }
  const int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
  if (nedges > 0 && edges == nullptr) return C().Error(comm, MPI_ERR_ARG, call, "no edges array");
  for (int i = 0; i < nedges; ++i) {
    if (edges[i] < 0 || edges[i] >= nnodes) {
      return C().Error(comm, MPI_ERR_ARG, call,
                       "edges[" + std::to_string(i) + "] is " + std::to_string(edges[i]));
    }
  }
  return MPI_SUCCESS;
}

/** Processes named as neighbours: ranks of `comm` (MPI_ERR_RANK otherwise). */
int CheckRanks(MPI_Comm comm, int n, const int ranks[], const char* what, const char* call) {
  if (n > 0 && ranks == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, call, std::string("no ") + what + " array");
  }
  const int size = C().Comm(comm)->size;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      return C().Error(
          comm, MPI_ERR_RANK, call,
          std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(ranks[i]));
    }
  }
  return MPI_SUCCESS;
}

/**
 * Whether a weights argument gives weights. Null counts as MPI_UNWEIGHTED: programs written
 * before MPI_WEIGHTS_EMPTY pass it where they have no weights, and it must never be read.
 * MPI_WEIGHTS_EMPTY gives none, weighted.
 */
bool Weighted(const int weights[]) { return weights != nullptr && weights != MPI_UNWEIGHTED; }

std::vector<int> WeightsOf(const int weights[], int n) {
  if (!Weighted(weights) || weights == MPI_WEIGHTS_EMPTY) return std::vector<int>(n, 1);
  return std::vector<int>(weights, weights + n);
}

int CheckWeights(MPI_Comm comm, const int weights[], int n, const char* call) {
  if (weights == MPI_WEIGHTS_EMPTY && n > 0) {
    return C().Error(comm, MPI_ERR_ARG, call, "MPI_WEIGHTS_EMPTY for edges that need weights");
  }
  return MPI_SUCCESS;
}

/** Copies up to `room` of `from` to `to` (MPI's max* arguments bound what the caller holds). */
void CopyOut(const std::vector<int>& from, int room, int to[]) {
  for (size_t i = 0; i < from.size() && static_cast<int>(i) < room; ++i) to[i] = from[i];
}

/** An edge as it travels to one of its ends in MPI_Dist_graph_create. */
struct EdgeEnd {
  int outgoing;  // 1: the receiver is the edge's source
  int peer;      // the other end
  int weight;
};

}  // namespace

extern "C" {

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int /*reorder*/, MPI_Comm* comm_graph) {
  static const char* const kCall = "MPI_Graph_create";
  NICSIM_MPI_TRY(CheckTopologyBase(comm_old, kCall));
  NICSIM_MPI_TRY(CheckGraph(comm_old, nnodes, index, edges, kCall));
  // An empty graph has no process: MPI_COMM_NULL everywhere (MPI 2.1), no collective needed.
  *comm_graph = MPI_COMM_NULL;
  if (nnodes == 0) return MPI_SUCCESS;
  const int rank = C().Comm(comm_old)->rank;
  NICSIM_MPI_TRY(MPI_Comm_split(comm_old, rank < nnodes ? 0 : MPI_UNDEFINED, rank, comm_graph));
  if (*comm_graph == MPI_COMM_NULL) return MPI_SUCCESS;
  Topology t;
  t.kind = MPI_GRAPH;
  t.index.assign(index, index + nnodes);
  t.edges.assign(edges, edges + index[nnodes - 1]);
  return AttachTopology(*comm_graph, std::move(t));
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  NICSIM_MPI_TRY(CheckTopologyBase(comm, "MPI_Graph_map"));
  NICSIM_MPI_TRY(CheckGraph(comm, nnodes, index, edges, "MPI_Graph_map"));
  const int rank = C().Comm(comm)->rank;
  *newrank = rank < nnodes ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_GRAPH, "MPI_Graphdims_get", &t));
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_GRAPH, "MPI_Graph_get", &t));
  CopyOut(t->index, maxindex, index);
  CopyOut(t->edges, maxedges, edges);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &t));
  NICSIM_MPI_TRY(CheckRanks(comm, 1, &rank, "rank", "MPI_Graph_neighbors_count"));
  *nneighbors = static_cast<int>(NeighboursOf(*t, rank).sources.size());
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_GRAPH, "MPI_Graph_neighbors", &t));
  NICSIM_MPI_TRY(CheckRanks(comm, 1, &rank, "rank", "MPI_Graph_neighbors"));
  CopyOut(NeighboursOf(*t, rank).sources, maxneighbors, neighbors);
  return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int* sourceweights, int outdegree,
                                   const int destinations[], const int* destweights,
                                   MPI_Info /*info*/, int /*reorder*/, MPI_Comm* comm_dist_graph) {
  static const char* const kCall = "MPI_Dist_graph_create_adjacent";
  NICSIM_MPI_TRY(CheckTopologyBase(comm_old, kCall));
  if (indegree < 0 || outdegree < 0) {
    return C().Error(comm_old, MPI_ERR_ARG, kCall, "negative degree");
  }
  NICSIM_MPI_TRY(CheckRanks(comm_old, indegree, sources, "sources", kCall));
  NICSIM_MPI_TRY(CheckRanks(comm_old, outdegree, destinations, "destinations", kCall));
  NICSIM_MPI_TRY(CheckWeights(comm_old, sourceweights, indegree, kCall));
  NICSIM_MPI_TRY(CheckWeights(comm_old, destweights, outdegree, kCall));
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.sources.assign(sources, sources + indegree);
  t.source_weights = WeightsOf(sourceweights, indegree);
  t.destinations.assign(destinations, destinations + outdegree);
  t.dest_weights = WeightsOf(destweights, outdegree);
  t.weighted = Weighted(sourceweights) && Weighted(destweights);
  NICSIM_MPI_TRY(MPI_Comm_split(comm_old, 0, C().Comm(comm_old)->rank, comm_dist_graph));
  return AttachTopology(*comm_dist_graph, std::move(t));
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int* weights, MPI_Info /*info*/,
                          int /*reorder*/, MPI_Comm* comm_dist_graph) {
  static const char* const kCall = "MPI_Dist_graph_create";
  NICSIM_MPI_TRY(CheckTopologyBase(comm_old, kCall));
  if (n < 0) return C().Error(comm_old, MPI_ERR_ARG, kCall, "negative n");
  if (n > 0 && degrees == nullptr) return C().Error(comm_old, MPI_ERR_ARG, kCall, "no degrees");
  NICSIM_MPI_TRY(CheckRanks(comm_old, n, sources, "sources", kCall));
  long long total_degree = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return C().Error(comm_old, MPI_ERR_ARG, kCall, "negative degree");
    total_degree += degrees[i];
  }
  if (total_degree > INT_MAX) return C().Error(comm_old, MPI_ERR_ARG, kCall, "too many edges");
  const int edges = static_cast<int>(total_degree);
  NICSIM_MPI_TRY(CheckRanks(comm_old, edges, destinations, "destinations", kCall));
  NICSIM_MPI_TRY(CheckWeights(comm_old, weights, edges, kCall));
  const std::vector<int> weight = WeightsOf(weights, edges);

  // Each edge goes to both its ends; every process then learns its own in and out edges.
  const int size = C().Comm(comm_old)->size;
  std::vector<std::vector<EdgeEnd>> to(static_cast<size_t>(size));
  for (int i = 0, e = 0; i < n; ++i) {
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      to[sources[i]].push_back(EdgeEnd{1, destinations[e], weight[e]});
      to[destinations[e]].push_back(EdgeEnd{0, sources[i], weight[e]});
    }
  }
  NICSIM_MPI_TRY(MPI_Comm_split(comm_old, 0, C().Comm(comm_old)->rank, comm_dist_graph));
  const MPI_Comm made = *comm_dist_graph;
  constexpr int kInts = sizeof(EdgeEnd) / sizeof(int);
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::vector<int> out;
  for (int p = 0; p < size; ++p) {
    send_displs[p] = static_cast<int>(out.size());
    send_counts[p] = static_cast<int>(to[p].size()) * kInts;
    for (const EdgeEnd& e : to[p]) out.insert(out.end(), {e.outgoing, e.peer, e.weight});
  }
  NICSIM_MPI_TRY(
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, made));
  int total = 0;
  for (int p = 0; p < size; ++p) {
    recv_displs[p] = total;
    total += recv_counts[p];
  }
  std::vector<int> in(static_cast<size_t>(total) + 1);  // + 1: data() is never null
  NICSIM_MPI_TRY(MPI_Alltoallv(out.data(), send_counts.data(), send_displs.data(), MPI_INT,
                               in.data(), recv_counts.data(), recv_displs.data(), MPI_INT, made));

  // In the order of the processes that gave the edges, then of their arguments.
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.weighted = Weighted(weights);
  for (int i = 0; i + kInts <= total; i += kInts) {
    if (in[i] == 1) {
      t.destinations.push_back(in[i + 1]);
      t.dest_weights.push_back(in[i + 2]);
    } else {
      t.sources.push_back(in[i + 1]);
      t.source_weights.push_back(in[i + 2]);
    }
  }
  return AttachTopology(made, std::move(t));
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count", &t));
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int* sourceweights,
                             int maxoutdegree, int destinations[], int* destweights) {
  const Topology* t = nullptr;
  NICSIM_MPI_TRY(NeedTopology(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors", &t));
  CopyOut(t->sources, maxindegree, sources);
  CopyOut(t->destinations, maxoutdegree, destinations);
  // Weights only where there are some to give and room for them.
  if (t->weighted && Weighted(sourceweights) && sourceweights != MPI_WEIGHTS_EMPTY) {
    CopyOut(t->source_weights, maxindegree, sourceweights);
  }
  if (t->weighted && Weighted(destweights) && destweights != MPI_WEIGHTS_EMPTY) {
    CopyOut(t->dest_weights, maxoutdegree, destweights);
  }
  return MPI_SUCCESS;
}

}  // extern "C"
