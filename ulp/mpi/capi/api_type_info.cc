// SPDX-License-Identifier: Apache-2.0
// What a program may ask of a datatype: size and bounds (and their MPI-1 forms), addresses, how
// it was made (envelope and contents), its name; and the predefined type of a given size.
#include <climits>
#include <cstring>
#include <string>

#include "ulp/mpi/capi/api_types.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

/** The type `t` for a query with a result pointer `out`. */
int Query(MPI_Datatype t, const void* out, const char* call, const TypeInfo** info) {
  NICSIM_MPI_TRY(OldType(t, call, info));
  return CheckArg(out != nullptr, call, "null result");
}

/** A count for an int result: MPI_UNDEFINED if it does not fit (MPI 3.1, 4.1.5). */
int IntOrUndefined(MPI_Count n) { return n <= INT_MAX ? static_cast<int>(n) : MPI_UNDEFINED; }

}  // namespace

extern "C" {

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, size, "MPI_Type_size", &t));
  *size = IntOrUndefined(static_cast<MPI_Count>(t->size));
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, size, "MPI_Type_size_x", &t));
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, lb, "MPI_Type_get_extent", &t));
  NICSIM_MPI_TRY(CheckArg(extent != nullptr, "MPI_Type_get_extent", "null extent"));
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, lb, "MPI_Type_get_extent_x", &t));
  NICSIM_MPI_TRY(CheckArg(extent != nullptr, "MPI_Type_get_extent_x", "null extent"));
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, true_lb, "MPI_Type_get_true_extent", &t));
  NICSIM_MPI_TRY(CheckArg(true_extent != nullptr, "MPI_Type_get_true_extent", "null extent"));
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, true_lb, "MPI_Type_get_true_extent_x", &t));
  NICSIM_MPI_TRY(CheckArg(true_extent != nullptr, "MPI_Type_get_true_extent_x", "null extent"));
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, extent, "MPI_Type_extent", &t));
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, displacement, "MPI_Type_lb", &t));
  *displacement = t->lb;
  return MPI_SUCCESS;
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Query(datatype, displacement, "MPI_Type_ub", &t));
  *displacement = t->ub();
  return MPI_SUCCESS;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  NICSIM_MPI_TRY(CheckArg(address != nullptr, "MPI_Get_address", "null address"));
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

int MPI_Address(void* location, MPI_Aint* address) {
  NICSIM_MPI_TRY(CheckArg(address != nullptr, "MPI_Address", "null address"));
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                          int* num_datatypes, int* combiner) {
  const char* call = "MPI_Type_get_envelope";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  NICSIM_MPI_TRY(CheckArg(num_integers != nullptr && num_addresses != nullptr &&
                              num_datatypes != nullptr && combiner != nullptr,
                          call, "null result"));
  if (t->contents == nullptr) {
    *num_integers = *num_addresses = *num_datatypes = 0;
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
  }
  const Contents& how = *t->contents;
  *num_integers = static_cast<int>(how.integers.size());
  *num_addresses = static_cast<int>(how.addresses.size());
  *num_datatypes = static_cast<int>(how.types.size());
  *combiner = how.combiner;
  return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  if (t->contents == nullptr) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "a predefined datatype has no contents");
  }
  // A copy: adding the types returned below may not invalidate it.
  const std::shared_ptr<const Contents> how = t->contents;
  const size_t ni = how->integers.size(), na = how->addresses.size(), nd = how->types.size();
  NICSIM_MPI_TRY(CheckArg(max_integers >= 0 && static_cast<size_t>(max_integers) >= ni &&
                              max_addresses >= 0 && static_cast<size_t>(max_addresses) >= na &&
                              max_datatypes >= 0 && static_cast<size_t>(max_datatypes) >= nd,
                          call, "the arrays are smaller than MPI_Type_get_envelope says"));
  NICSIM_MPI_TRY(CheckArg((ni == 0 || array_of_integers != nullptr) &&
                              (na == 0 || array_of_addresses != nullptr) &&
                              (nd == 0 || array_of_datatypes != nullptr),
                          call, "null array"));
  if (ni > 0) std::memcpy(array_of_integers, how->integers.data(), ni * sizeof(int));
  if (na > 0) std::memcpy(array_of_addresses, how->addresses.data(), na * sizeof(MPI_Aint));
  for (size_t i = 0; i < nd; ++i) {
    // A predefined type is returned as it is; a derived one as a new handle of an equivalent
    // type, which the program frees (MPI 3.1, 4.1.13).
    const std::shared_ptr<const TypeInfo>& derived = how->derived[i];
    array_of_datatypes[i] = derived == nullptr ? how->types[i] : C().types.Add(*derived);
    if (derived != nullptr && derived->committed) C().types.Commit(array_of_datatypes[i]);
  }
  return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const char* call = "MPI_Type_set_name";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  NICSIM_MPI_TRY(CheckArg(type_name != nullptr, call, "null name"));
  const std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  C().types.SetName(datatype, name);
  return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const char* call = "MPI_Type_get_name";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  NICSIM_MPI_TRY(CheckArg(type_name != nullptr && resultlen != nullptr, call, "null result"));
  std::memcpy(type_name, t->name.c_str(), t->name.size() + 1);
  *resultlen = static_cast<int>(t->name.size());
  return MPI_SUCCESS;
}

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* call = "MPI_Type_match_size";
  NICSIM_MPI_TRY(CheckArg(datatype != nullptr, call, "null datatype"));
  // Fortran's types first, as MPI 3.1 (17.1.9) suggests: the call is for Fortran's kinds.
  static const MPI_Datatype kReal[] = {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL16};
  static const MPI_Datatype kInteger[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER, MPI_INTEGER8};
  static const MPI_Datatype kComplex[] = {MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX32};
  const MPI_Datatype* first = nullptr;
  size_t n = 3;
  switch (typeclass) {
    case MPI_TYPECLASS_REAL:
      first = kReal;
      break;
    case MPI_TYPECLASS_INTEGER:
      first = kInteger;
      n = 4;
      break;
    case MPI_TYPECLASS_COMPLEX:
      first = kComplex;
      break;
    default:
      return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "invalid typeclass");
  }
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int>(C().types.Find(first[i])->size) == size) {
      *datatype = first[i];
      return MPI_SUCCESS;
    }
  }
  return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                   "no predefined type of this class has " + std::to_string(size) + " bytes");
}

}  // extern "C"
