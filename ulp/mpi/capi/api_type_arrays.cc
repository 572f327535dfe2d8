// SPDX-License-Identifier: Apache-2.0
// The array datatypes: a subarray of an n-dimensional array, and a process's part of an array
// distributed over a process grid (MPI 3.1, 4.1.3 and 4.1.4). Both are built one dimension at
// a time, from the fastest-varying one, as vectors of the previous dimension's type, each
// resized to span its whole dimension.
#include <algorithm>
#include <numeric>
#include <vector>

#include "ulp/mpi/capi/api_types.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** The dimensions from the fastest-varying to the slowest. */
std::vector<int> FastestFirst(int ndims, int order) {
  std::vector<int> dims(static_cast<size_t>(ndims));
  std::iota(dims.begin(), dims.end(), 0);
  if (order == MPI_ORDER_C) std::reverse(dims.begin(), dims.end());
  return dims;
}

int CheckOrder(int order, const char* call) {
  return CheckArg(order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, call, "invalid order");
}

/**
 * One dimension of a distributed array: of `g` elements of `t` (`t`'s extent apart), the blocks
 * of `darg` that process `r` of `p` owns (blocks r, r + p, r + 2p...; the last block of the
 * dimension may be short), in a type spanning the whole dimension.
 */
TypeInfo Cyclic(const TypeInfo& t, int g, int darg, int p, int r) {
  const ptrdiff_t e = t.extent;
  const int blocks = (g + darg - 1) / darg;
  const int mine = blocks > r ? (blocks - r - 1) / p + 1 : 0;
  const int last = r + (mine - 1) * p;
  const bool short_last = mine > 0 && last == blocks - 1 && g % darg != 0;
  const int full = short_last ? mine - 1 : mine;
  const TypeInfo strided = MakeHvector(static_cast<size_t>(full), static_cast<size_t>(darg),
                                       static_cast<ptrdiff_t>(darg) * p * e, t);
  const TypeInfo tail = MakeContiguous(short_last ? static_cast<size_t>(g % darg) : 0, t);
  const TypeInfo parts = MakeStruct(
      {1, 1}, {static_cast<ptrdiff_t>(r) * darg * e, static_cast<ptrdiff_t>(last) * darg * e},
      {&strided, &tail});
  if (!strided.valid || !parts.valid) return parts.valid ? strided : parts;
  return MakeResized(parts, 0, static_cast<ptrdiff_t>(g) * e);
}

/** Checks a darray's distribution of dimension i and gives its block size. */
int DistributionOf(int i, const int gsizes[], const int distribs[], const int dargs[],
                   const int psizes[], int* darg, const char* call) {
  const int g = gsizes[i], p = psizes[i], d = dargs[i];
  NICSIM_MPI_TRY(CheckArg(g > 0 && p > 0, call, "sizes must be positive"));
  NICSIM_MPI_TRY(CheckArg(d > 0 || d == MPI_DISTRIBUTE_DFLT_DARG, call, "invalid darg"));
  switch (distribs[i]) {
    case MPI_DISTRIBUTE_NONE:
      NICSIM_MPI_TRY(CheckArg(p == 1, call, "an undistributed dimension has one process"));
      *darg = g;
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
      *darg = d == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : d;
      return CheckArg(static_cast<long long>(*darg) * p >= g, call,
                      "the blocks do not cover the dimension");
    case MPI_DISTRIBUTE_CYCLIC:
      *darg = d == MPI_DISTRIBUTE_DFLT_DARG ? 1 : d;
      return MPI_SUCCESS;
    default:
      return CheckArg(false, call, "invalid distribution");
  }
}

}  // namespace

extern "C" {

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_subarray";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckArg(ndims > 0, call, "ndims must be positive"));
  NICSIM_MPI_TRY(CheckArg(array_of_sizes != nullptr && array_of_subsizes != nullptr &&
                              array_of_starts != nullptr && newtype != nullptr,
                          call, "null array"));
  for (int i = 0; i < ndims; ++i) {
    const int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
    NICSIM_MPI_TRY(CheckArg(size > 0 && sub > 0 && sub <= size && start >= 0 && start <= size - sub,
                            call, "a subarray must lie inside its array"));
  }
  NICSIM_MPI_TRY(CheckOrder(order, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  TypeInfo t = *old;
  ptrdiff_t stride = old->extent, displacement = 0;
  for (int d : FastestFirst(ndims, order)) {
    t = MakeHvector(static_cast<size_t>(array_of_subsizes[d]), 1, stride, t);
    if (!t.valid) break;
    displacement += static_cast<ptrdiff_t>(array_of_starts[d]) * stride;
    stride *= array_of_sizes[d];
  }
  if (t.valid) t = MakeResized(MakeIndexed({1}, {displacement}, t), 0, stride);
  Contents how{MPI_COMBINER_SUBARRAY, {ndims}, {}, {oldtype}, {}};
  for (const int* a : {array_of_sizes, array_of_subsizes, array_of_starts}) {
    how.integers.insert(how.integers.end(), a, a + ndims);
  }
  how.integers.push_back(order);
  return AddType(std::move(t), std::move(how), newtype, call);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_darray";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckArg(size > 0 && rank >= 0 && rank < size, call, "invalid size or rank"));
  NICSIM_MPI_TRY(CheckArg(ndims > 0, call, "ndims must be positive"));
  NICSIM_MPI_TRY(CheckArg(array_of_gsizes != nullptr && array_of_distribs != nullptr &&
                              array_of_dargs != nullptr && array_of_psizes != nullptr &&
                              newtype != nullptr,
                          call, "null array"));
  std::vector<int> dargs(static_cast<size_t>(ndims));
  long long processes = 1;
  for (int i = 0; i < ndims; ++i) {
    NICSIM_MPI_TRY(DistributionOf(i, array_of_gsizes, array_of_distribs, array_of_dargs,
                                  array_of_psizes, &dargs[i], call));
    processes *= array_of_psizes[i];
    NICSIM_MPI_TRY(CheckArg(processes <= size, call, "the process grid is not size processes"));
  }
  NICSIM_MPI_TRY(CheckArg(processes == size, call, "the process grid is not size processes"));
  NICSIM_MPI_TRY(CheckOrder(order, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  // The process grid is row-major whatever the array's order (MPI 3.1, 4.1.4).
  std::vector<int> coords(static_cast<size_t>(ndims));
  for (int i = ndims - 1, left = rank; i >= 0; --i) {
    coords[i] = left % array_of_psizes[i];
    left /= array_of_psizes[i];
  }
  TypeInfo t = *old;
  for (int d : FastestFirst(ndims, order)) {
    t = Cyclic(t, array_of_gsizes[d], dargs[d], array_of_psizes[d], coords[d]);
    if (!t.valid) break;
  }
  Contents how{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {oldtype}, {}};
  for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes}) {
    how.integers.insert(how.integers.end(), a, a + ndims);
  }
  how.integers.push_back(order);
  return AddType(std::move(t), std::move(how), newtype, call);
}

}  // extern "C"
