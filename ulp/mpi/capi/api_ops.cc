// SPDX-License-Identifier: Apache-2.0
// The program's own reduction ops (MPI_Op_create): kept by the client, applied in the
// program's process when the simulator asks (Client::Serve).
#include "ulp/mpi/capi/checks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

extern "C" {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  C().ops.push_back(UserOp{true, user_fn, commute != 0});
  *op = static_cast<MPI_Op>(C().ops.size() - 1);
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op* op) {
  if (*op <= 0 || static_cast<size_t>(*op) >= C().ops.size() || !C().ops[*op].valid) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free", "not a user op");
  }
  C().ops[*op].valid = false;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  if (op >= MPI_SUM && op <= MPI_NO_OP) {
    *commute = 1;
    return MPI_SUCCESS;
  }
  if (op <= 0 || static_cast<size_t>(op) >= C().ops.size() || !C().ops[op].valid) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", "invalid op");
  }
  *commute = C().ops[op].commute;
  return MPI_SUCCESS;
}

}  // extern "C"
