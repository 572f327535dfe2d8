// SPDX-License-Identifier: Apache-2.0
// MPI's datatype constructors (and their MPI-1 forms), commit, dup and free. Each constructor
// records its arguments for MPI_Type_get_contents.
#include <utility>
#include <vector>

#include "ulp/mpi/capi/api_types.h"
#include "ulp/mpi/capi/object_hooks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace nicsim::mpi::capi {

int OldType(MPI_Datatype t, const char* call, const TypeInfo** info) {
  *info = C().types.Find(t);
  if (*info == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype");
  return MPI_SUCCESS;
}

int CheckCount(int count, const char* call) {
  if (count >= 0) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count");
}

int CheckArg(bool ok, const char* call, const char* what) {
  return ok ? MPI_SUCCESS : C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, what);
}

int AddType(TypeInfo t, Contents how, MPI_Datatype* newtype, const char* call) {
  if (!t.valid) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                     "the type's layout has too many pieces to hold");
  }
  how.derived.clear();
  for (MPI_Datatype old : how.types) {
    const TypeInfo* info = C().types.Find(old);
    how.derived.push_back(info != nullptr && !info->predefined ? C().types.Shared(old) : nullptr);
  }
  t.contents = std::make_shared<const Contents>(std::move(how));
  t.name.clear();
  t.committed = false;
  *newtype = C().types.Add(std::move(t));
  return MPI_SUCCESS;
}

}  // namespace nicsim::mpi::capi

namespace {

/** The element counts and byte displacements of an (h)indexed type's blocks. */
struct Blocks {
  std::vector<int> lengths;
  std::vector<ptrdiff_t> displs;
};

/** Checks an (h)indexed call's arrays: `count` blocks, none of negative length. */
int CheckBlocks(int count, const int blocklengths[], const void* displacements, const char* call) {
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(CheckArg(count == 0 || (blocklengths != nullptr && displacements != nullptr), call,
                          "null array"));
  for (int i = 0; i < count; ++i) NICSIM_MPI_TRY(CheckCount(blocklengths[i], call));
  return MPI_SUCCESS;
}

/** Block i: blocklengths[i] items (or `same` items each) at displacements[i] x `unit` bytes. */
template <typename D>
Blocks MakeBlocks(int count, const int blocklengths[], int same, const D displacements[],
                  ptrdiff_t unit) {
  Blocks b;
  for (int i = 0; i < count; ++i) {
    b.lengths.push_back(blocklengths != nullptr ? blocklengths[i] : same);
    b.displs.push_back(static_cast<ptrdiff_t>(displacements[i]) * unit);
  }
  return b;
}

int Hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
            MPI_Datatype* newtype, const char* call) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(CheckCount(blocklength, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  return AddType(
      MakeHvector(static_cast<size_t>(count), static_cast<size_t>(blocklength), stride, *old),
      Contents{MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {oldtype}, {}}, newtype, call);
}

int Hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype, const char* call) {
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckBlocks(count, blocklengths, displacements, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  const Blocks b = MakeBlocks(count, blocklengths, 0, displacements, 1);
  Contents how{MPI_COMBINER_HINDEXED, {count}, {}, {oldtype}, {}};
  how.integers.insert(how.integers.end(), blocklengths, blocklengths + count);
  how.addresses.assign(displacements, displacements + count);
  return AddType(MakeIndexed(b.lengths, b.displs, *old), std::move(how), newtype, call);
}

int Struct(int count, const int blocklengths[], const MPI_Aint displacements[],
           const MPI_Datatype types[], MPI_Datatype* newtype, const char* call) {
  NICSIM_MPI_TRY(CheckBlocks(count, blocklengths, displacements, call));
  NICSIM_MPI_TRY(CheckArg(count == 0 || types != nullptr, call, "null array of types"));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  std::vector<const TypeInfo*> olds(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) NICSIM_MPI_TRY(OldType(types[i], call, &olds[i]));
  Contents how{MPI_COMBINER_STRUCT, {count}, {}, {}, {}};
  how.integers.insert(how.integers.end(), blocklengths, blocklengths + count);
  how.addresses.assign(displacements, displacements + count);
  how.types.assign(types, types + count);
  return AddType(MakeStruct(std::vector<int>(blocklengths, blocklengths + count),
                            std::vector<ptrdiff_t>(displacements, displacements + count), olds),
                 std::move(how), newtype, call);
}

}  // namespace

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_contiguous";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  return AddType(MakeContiguous(static_cast<size_t>(count), *old),
                 Contents{MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype}, {}}, newtype, call);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  const char* call = "MPI_Type_vector";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(CheckCount(blocklength, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  return AddType(MakeHvector(static_cast<size_t>(count), static_cast<size_t>(blocklength),
                             static_cast<ptrdiff_t>(stride) * old->extent, *old),
                 Contents{MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, {oldtype}, {}},
                 newtype, call);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return Hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_create_hvector");
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return Hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_hvector");
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_indexed";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckBlocks(count, blocklengths, displacements, call));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  const Blocks b = MakeBlocks(count, blocklengths, 0, displacements, old->extent);
  Contents how{MPI_COMBINER_INDEXED, {count}, {}, {oldtype}, {}};
  how.integers.insert(how.integers.end(), blocklengths, blocklengths + count);
  how.integers.insert(how.integers.end(), displacements, displacements + count);
  return AddType(MakeIndexed(b.lengths, b.displs, *old), std::move(how), newtype, call);
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Hindexed(count, blocklengths, displacements, oldtype, newtype, "MPI_Type_create_hindexed");
}

int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return Hindexed(count, blocklengths, displacements, oldtype, newtype, "MPI_Type_hindexed");
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_indexed_block";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(CheckCount(blocklength, call));
  NICSIM_MPI_TRY(CheckArg(count == 0 || displacements != nullptr, call, "null array"));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  const Blocks b = MakeBlocks(count, nullptr, blocklength, displacements, old->extent);
  Contents how{MPI_COMBINER_INDEXED_BLOCK, {count, blocklength}, {}, {oldtype}, {}};
  how.integers.insert(how.integers.end(), displacements, displacements + count);
  return AddType(MakeIndexed(b.lengths, b.displs, *old), std::move(how), newtype, call);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_hindexed_block";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(CheckCount(count, call));
  NICSIM_MPI_TRY(CheckCount(blocklength, call));
  NICSIM_MPI_TRY(CheckArg(count == 0 || displacements != nullptr, call, "null array"));
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  const Blocks b = MakeBlocks(count, nullptr, blocklength, displacements, 1);
  Contents how{MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength}, {}, {oldtype}, {}};
  how.addresses.assign(displacements, displacements + count);
  return AddType(MakeIndexed(b.lengths, b.displs, *old), std::move(how), newtype, call);
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* newtype) {
  return Struct(count, blocklengths, displacements, types, newtype, "MPI_Type_create_struct");
}

int MPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                    MPI_Datatype* newtype) {
  return Struct(count, blocklengths, displacements, types, newtype, "MPI_Type_struct");
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_resized";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  return AddType(MakeResized(*old, lb, extent),
                 Contents{MPI_COMBINER_RESIZED, {}, {lb, extent}, {oldtype}, {}}, newtype, call);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_dup";
  const TypeInfo* old = nullptr;
  NICSIM_MPI_TRY(OldType(oldtype, call, &old));
  NICSIM_MPI_TRY(CheckArg(newtype != nullptr, call, "null newtype"));
  // The same type map, committed if the old one is (MPI 3.1, 4.1.10); the name is not copied.
  const bool committed = old->committed;
  NICSIM_MPI_TRY(AddType(*old, Contents{MPI_COMBINER_DUP, {}, {}, {oldtype}, {}}, newtype, call));
  if (committed) C().types.Commit(*newtype);
  if (const int code = CopyTypeAttributes(oldtype, *newtype); code != MPI_SUCCESS) {
    // A copy callback refused: the duplicate goes again, with what was copied to it.
    DeleteTypeAttributes(*newtype);
    C().types.Free(*newtype);
    *newtype = MPI_DATATYPE_NULL;
    return C().Error(MPI_COMM_WORLD, code, call, "an attribute's copy callback failed");
  }
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  NICSIM_MPI_TRY(CheckArg(datatype != nullptr, "MPI_Type_commit", "null datatype"));
  if (!C().types.Commit(*datatype)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype");
  }
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype* datatype) {
  NICSIM_MPI_TRY(CheckArg(datatype != nullptr, "MPI_Type_free", "null datatype"));
  const TypeInfo* t = C().types.Find(*datatype);
  // The attributes' delete callbacks run while the type still exists; it goes even if one fails.
  const int code = t != nullptr && !t->predefined ? DeleteTypeAttributes(*datatype) : MPI_SUCCESS;
  if (!C().types.Free(*datatype)) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free", "not a derived datatype");
  }
  *datatype = MPI_DATATYPE_NULL;
  if (code != MPI_SUCCESS) {
    return C().Error(MPI_COMM_WORLD, code, "MPI_Type_free",
                     "an attribute's delete callback failed");
  }
  return MPI_SUCCESS;
}

}  // extern "C"
