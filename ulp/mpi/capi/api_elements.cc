// SPDX-License-Identifier: Apache-2.0
// A status's count in basic elements (MPI_Get_elements), and a status made to hold a given one
// (MPI_Status_set_elements): a status holds bytes received, and a type's runs say how many
// elements those bytes are, a partial item included.
#include <climits>

#include "ulp/mpi/capi/api_types.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

size_t ElementSize(MPI_Datatype elem) { return C().types.Find(elem)->size; }

/** Elements in the first `bytes` of packed items of `t`; MPI_UNDEFINED if they end inside one. */
MPI_Count ElementsIn(MPI_Count bytes, const TypeInfo& t) {
  if (t.size == 0 || bytes <= 0) return 0;
  const auto size = static_cast<MPI_Count>(t.size);
  MPI_Count elements = bytes / size * static_cast<MPI_Count>(t.elements);
  auto left = static_cast<size_t>(bytes % size);
  for (const Run& r : t.runs) {
    if (left == 0) break;
    const size_t each = ElementSize(r.elem);
    const size_t blocks = std::min(r.count, left / r.length);
    elements += static_cast<MPI_Count>(blocks * (r.length / each));
    left -= blocks * r.length;
    if (blocks < r.count) {
      if (left % each != 0) return MPI_UNDEFINED;
      elements += static_cast<MPI_Count>(left / each);
      left = 0;
    }
  }
  return elements;
}

/** Packed bytes of the first `elements` elements of items of `t`. */
MPI_Count BytesOf(MPI_Count elements, const TypeInfo& t) {
  if (t.elements == 0) return 0;
  const auto per_item = static_cast<MPI_Count>(t.elements);
  MPI_Count bytes = elements / per_item * static_cast<MPI_Count>(t.size);
  auto left = static_cast<size_t>(elements % per_item);
  for (const Run& r : t.runs) {
    if (left == 0) break;
    const size_t each = ElementSize(r.elem), in_block = r.length / each;
    const size_t blocks = std::min(r.count, left / in_block);
    bytes += static_cast<MPI_Count>(blocks * r.length);
    left -= blocks * in_block;
    if (blocks < r.count) {
      bytes += static_cast<MPI_Count>(left * each);
      left = 0;
    }
  }
  return bytes;
}

int Args(const void* status, MPI_Datatype type, const void* out, const char* call,
         const TypeInfo** t) {
  NICSIM_MPI_TRY(CheckArg(status != nullptr && out != nullptr, call, "null status or result"));
  return OldType(type, call, t);
}

int SetElements(MPI_Status* status, MPI_Datatype datatype, MPI_Count count, const char* call) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Args(status, datatype, status, call, &t));
  if (count < 0) return C().Error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count");
  status->nicsim_bytes = BytesOf(count, *t);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Args(status, datatype, count, "MPI_Get_elements", &t));
  const MPI_Count n = ElementsIn(status->nicsim_bytes, *t);
  *count = n <= INT_MAX ? static_cast<int>(n) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(Args(status, datatype, count, "MPI_Get_elements_x", &t));
  *count = ElementsIn(status->nicsim_bytes, *t);
  return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return SetElements(status, datatype, count, "MPI_Status_set_elements");
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return SetElements(status, datatype, count, "MPI_Status_set_elements_x");
}

}  // extern "C"
