// SPDX-License-Identifier: Apache-2.0
// MPI's naming calls for communicators: MPI_COMM_WORLD and MPI_COMM_SELF are born named,
// others have no name until given one, and a duplicate does not inherit it (MPI 3.1, 6.8).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/comm_names.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

std::map<MPI_Comm, std::string>& Names() {
  static auto* names = new std::map<MPI_Comm, std::string>();  // never destroyed: atexit
  return *names;
}

std::string NameOf(MPI_Comm comm) {
  const auto n = Names().find(comm);
  if (n != Names().end()) return n->second;
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (comm == MPI_COMM_SELF) return "MPI_COMM_SELF";
  return "";
}

}  // namespace

namespace nicsim::mpi::capi {

void ForgetCommName(MPI_Comm comm) { Names().erase(comm); }

}  // namespace nicsim::mpi::capi

extern "C" {

int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_set_name"));
  if (comm_name == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "null name");
  }
  // A longer name is cut to what MPI_Comm_get_name can return.
  Names()[comm] = std::string(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  NICSIM_MPI_TRY(CheckComm(comm, "MPI_Comm_get_name"));
  if (comm_name == nullptr || resultlen == nullptr) {
    return C().Error(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "null name or length");
  }
  const std::string name = NameOf(comm);
  std::memcpy(comm_name, name.c_str(), name.size() + 1);
  *resultlen = static_cast<int>(name.size());
  return MPI_SUCCESS;
}

}  // extern "C"
