// SPDX-License-Identifier: Apache-2.0
// MPI's datatype calls: constructors, commit and free, size and extent.
#include <vector>

#include "ulp/mpi/capi/checks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** The type `t` may be built from (committed or not), or the error MPI_ERR_TYPE. */
int Old(MPI_Datatype t, const char* call, const TypeInfo** info) {
  *info = C().types.Find(t);
  if (*info == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype");
  return MPI_SUCCESS;
}

int Count(int count, const char* call) {
  if (count >= 0) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count");
}

}  // namespace

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(Count(count, "MPI_Type_contiguous"));
  NICSIM_MPI_TRY(Old(oldtype, "MPI_Type_contiguous", &old));
  *newtype = C().types.Add(MakeContiguous(static_cast<size_t>(count), *old));
  return MPI_SUCCESS;
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(Count(count, "MPI_Type_vector"));
  NICSIM_MPI_TRY(Count(blocklength, "MPI_Type_vector"));
  NICSIM_MPI_TRY(Old(oldtype, "MPI_Type_vector", &old));
  *newtype = C().types.Add(MakeHvector(static_cast<size_t>(count), static_cast<size_t>(blocklength),
                                       static_cast<ptrdiff_t>(stride) * old->extent, *old));
  return MPI_SUCCESS;
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(Count(count, "MPI_Type_create_hvector"));
  NICSIM_MPI_TRY(Count(blocklength, "MPI_Type_create_hvector"));
  NICSIM_MPI_TRY(Old(oldtype, "MPI_Type_create_hvector", &old));
  *newtype = C().types.Add(
      MakeHvector(static_cast<size_t>(count), static_cast<size_t>(blocklength), stride, *old));
  return MPI_SUCCESS;
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(Count(count, "MPI_Type_indexed"));
  NICSIM_MPI_TRY(Old(oldtype, "MPI_Type_indexed", &old));
  std::vector<int> lengths(blocklengths, blocklengths + count);
  std::vector<ptrdiff_t> displs(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    NICSIM_MPI_TRY(Count(lengths[i], "MPI_Type_indexed"));
    displs[i] = static_cast<ptrdiff_t>(displacements[i]) * old->extent;
  }
  *newtype = C().types.Add(MakeIndexed(lengths, displs, *old));
  return MPI_SUCCESS;
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* newtype) {
  NICSIM_MPI_TRY(Count(count, "MPI_Type_create_struct"));
  std::vector<const TypeInfo*> olds(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    NICSIM_MPI_TRY(Count(blocklengths[i], "MPI_Type_create_struct"));
    NICSIM_MPI_TRY(Old(types[i], "MPI_Type_create_struct", &olds[i]));
  }
  *newtype = C().types.Add(MakeStruct(std::vector<int>(blocklengths, blocklengths + count),
                                      std::vector<ptrdiff_t>(displacements, displacements + count),
                                      olds));
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  if (!C().types.Commit(*datatype)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype");
  }
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype* datatype) {
  if (!C().types.Free(*datatype)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free", "not a derived datatype");
  }
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Old(datatype, "MPI_Type_size", &t));
  *size = static_cast<int>(t->size);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Old(datatype, "MPI_Type_get_extent", &t));
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

}  // extern "C"
