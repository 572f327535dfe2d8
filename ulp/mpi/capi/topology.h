// SPDX-License-Identifier: Apache-2.0
// Process topologies (MPI 3.1 chapter 7), kept entirely on the program's side: the simulator
// sees plain communicators, and the library remembers which of them carry a Cartesian grid, a
// graph or a distributed graph. The constructors and queries are in api_topo.cc and
// api_graph.cc, the neighbourhood collectives in api_neighbor.cc.
#pragma once

#include <vector>

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

struct Topology {
  /** MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH (MPI_Topo_test's answer). */
  int kind = MPI_UNDEFINED;
  /** MPI_CART: the grid's extent and periodicity per dimension (row-major ranks). */
  std::vector<int> dims, periods;
  /** MPI_GRAPH: the whole graph, as MPI_Graph_create took it (every process knows it). */
  std::vector<int> index, edges;
  /** MPI_DIST_GRAPH: this process's own edges only, in and out, with their weights. */
  std::vector<int> sources, source_weights, destinations, dest_weights;
  /** MPI_DIST_GRAPH: false when the graph was made with MPI_UNWEIGHTED. */
  bool weighted = false;
  /**
   * A communicator of the same group and order, used by the neighbourhood collectives only:
   * on it their messages can never match a receive of the program's own.
   */
  MPI_Comm channel = MPI_COMM_NULL;
};

/** The topology of `comm`, or nullptr when it has none (or is no communicator). */
const Topology* FindTopology(MPI_Comm comm);

/** The communicator a topology is made from, for `call`: an intracommunicator (MPI_ERR_COMM). */
int CheckTopologyBase(MPI_Comm comm, const char* call);

/**
 * The topology of `comm` for `call`: MPI_ERR_COMM for no communicator, MPI_ERR_TOPOLOGY when
 * it has no topology or (unless `kind` is MPI_UNDEFINED) one of another kind.
 */
int NeedTopology(MPI_Comm comm, int kind, const char* call, const Topology** topology);

/**
 * Gives the new communicator `comm` (of the calling process) its topology, and makes the
 * private channel for it: collective over `comm`'s group. Returns an MPI error code.
 */
int AttachTopology(MPI_Comm comm, Topology topology);

/**
 * Where each slot of a neighbourhood collective comes from and goes to, in MPI's order
 * (MPI_PROC_NULL: a slot with no process, skipped but kept), and the tag each message carries
 * so that the slots pair up even when one process is a neighbour twice.
 */
struct Neighbourhood {
  std::vector<int> sources, recv_tags;
  std::vector<int> destinations, send_tags;
};
Neighbourhood NeighboursOf(const Topology& topology, int rank);

/** The rank of the grid point at `coords` (wrapped on periodic dimensions), or -1 if off it. */
int CartRankOf(const Topology& topology, const int coords[]);
/** The grid coordinates of `rank`, one per dimension. */
std::vector<int> CartCoordsOf(const Topology& topology, int rank);

}  // namespace nicsim::mpi::capi
