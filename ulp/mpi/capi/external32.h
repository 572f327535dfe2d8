// SPDX-License-Identifier: Apache-2.0
// MPI's "external32" data representation (MPI 3.1, 13.5.2): every basic element big-endian, in
// the sizes of table 13.2 (long is 4 bytes, long double a 16-byte IEEE quad, wchar_t 2 bytes),
// elements back to back; what MPI_Pack_external writes and MPI_Unpack_external reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ulp/mpi/capi/types.h"

namespace nicsim::mpi::capi {

/** Bytes one item of `t` takes in external32. */
size_t External32Size(const TypeInfo& t);
/** `count` items of `t` at `buf`, written in external32 to `out` (count x External32Size). */
void PackExternal32(const void* buf, size_t count, const TypeInfo& t, uint8_t* out);
/** `count` items of `t` read from external32 at `in` into `buf`. */
void UnpackExternal32(const uint8_t* in, void* buf, size_t count, const TypeInfo& t);

}  // namespace nicsim::mpi::capi
