// SPDX-License-Identifier: Apache-2.0
// MPI_Pack and MPI_Unpack (the bytes that travel: this library's packed form), and their
// external32 forms, which any MPI library reads.
#include <climits>
#include <cstring>
#include <string>

#include "ulp/mpi/capi/api_types.h"
#include "ulp/mpi/capi/external32.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

constexpr char kExternal32[] = "external32";

int CheckDatarep(const char* datarep, const char* call) {
  if (datarep != nullptr && std::strcmp(datarep, kExternal32) == 0) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "the only data representation is external32");
}

/**
 * A packing call's buffer: `need` bytes from *position must fit in `size` bytes, else
 * MPI_ERR_TRUNCATE (the error Open MPI gives; MPI names none).
 */
int CheckRoom(MPI_Comm comm, const void* position, long long at, long long size, size_t need,
              const char* call) {
  if (position == nullptr) return C().Error(comm, MPI_ERR_ARG, call, "null position");
  if (at < 0 || size < 0) return C().Error(comm, MPI_ERR_ARG, call, "negative position or size");
  if (at > size || static_cast<unsigned long long>(size - at) < need) {
    return C().Error(comm, MPI_ERR_TRUNCATE, call,
                     std::to_string(need) + " bytes do not fit in the " +
                         std::to_string(size - at) + " bytes left");
  }
  return MPI_SUCCESS;
}

int CheckBuffer(MPI_Comm comm, const void* buf, size_t bytes, const char* call) {
  if (buf != nullptr || bytes == 0) return MPI_SUCCESS;
  return C().Error(comm, MPI_ERR_BUFFER, call, "null buffer");
}

/** `count` items of the committed type `type`, for a call on no communicator. */
int CheckExternalData(int count, MPI_Datatype type, const char* call, const TypeInfo** t) {
  return CheckData(MPI_COMM_WORLD, count, type, call, t);
}

}  // namespace

extern "C" {

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
  const char* call = "MPI_Pack";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckComm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, incount, datatype, call, &t));
  const size_t need = PackedSize(static_cast<size_t>(incount), *t);
  NICSIM_MPI_TRY(CheckRoom(comm, position, position ? *position : 0, outsize, need, call));
  NICSIM_MPI_TRY(CheckBuffer(comm, outbuf, need, call));
  PackTo(inbuf, static_cast<size_t>(incount), *t, static_cast<uint8_t*>(outbuf) + *position);
  *position += static_cast<int>(need);
  return MPI_SUCCESS;
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
  const char* call = "MPI_Unpack";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckComm(comm, call));
  NICSIM_MPI_TRY(CheckData(comm, outcount, datatype, call, &t));
  const size_t need = PackedSize(static_cast<size_t>(outcount), *t);
  NICSIM_MPI_TRY(CheckRoom(comm, position, position ? *position : 0, insize, need, call));
  NICSIM_MPI_TRY(CheckBuffer(comm, inbuf, need, call));
  Unpack(static_cast<const uint8_t*>(inbuf) + *position, need, outbuf,
         static_cast<size_t>(outcount), *t);
  *position += static_cast<int>(need);
  return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  const char* call = "MPI_Pack_size";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckComm(comm, call));
  NICSIM_MPI_TRY(CheckCount(incount, call));
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  NICSIM_MPI_TRY(CheckArg(size != nullptr, call, "null size"));
  const size_t bytes = PackedSize(static_cast<size_t>(incount), *t);
  if (bytes > INT_MAX) return C().Error(comm, MPI_ERR_COUNT, call, "the size exceeds an int");
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                      void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  const char* call = "MPI_Pack_external";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckDatarep(datarep, call));
  NICSIM_MPI_TRY(CheckExternalData(incount, datatype, call, &t));
  const size_t need = static_cast<size_t>(incount) * External32Size(*t);
  NICSIM_MPI_TRY(
      CheckRoom(MPI_COMM_WORLD, position, position ? *position : 0, outsize, need, call));
  NICSIM_MPI_TRY(CheckBuffer(MPI_COMM_WORLD, outbuf, need, call));
  PackExternal32(inbuf, static_cast<size_t>(incount), *t,
                 static_cast<uint8_t*>(outbuf) + *position);
  *position += static_cast<MPI_Aint>(need);
  return MPI_SUCCESS;
}

int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                        MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype) {
  const char* call = "MPI_Unpack_external";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckDatarep(datarep, call));
  NICSIM_MPI_TRY(CheckExternalData(outcount, datatype, call, &t));
  const size_t need = static_cast<size_t>(outcount) * External32Size(*t);
  NICSIM_MPI_TRY(CheckRoom(MPI_COMM_WORLD, position, position ? *position : 0, insize, need, call));
  NICSIM_MPI_TRY(CheckBuffer(MPI_COMM_WORLD, inbuf, need, call));
  UnpackExternal32(static_cast<const uint8_t*>(inbuf) + *position, outbuf,
                   static_cast<size_t>(outcount), *t);
  *position += static_cast<MPI_Aint>(need);
  return MPI_SUCCESS;
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint* size) {
  const char* call = "MPI_Pack_external_size";
  const TypeInfo* t = nullptr;
  NICSIM_MPI_TRY(CheckDatarep(datarep, call));
  NICSIM_MPI_TRY(CheckCount(incount, call));
  NICSIM_MPI_TRY(OldType(datatype, call, &t));
  NICSIM_MPI_TRY(CheckArg(size != nullptr, call, "null size"));
  *size = static_cast<MPI_Aint>(static_cast<size_t>(incount) * External32Size(*t));
  return MPI_SUCCESS;
}

}  // extern "C"
