// SPDX-License-Identifier: Apache-2.0
// The MPI layer's parameters, declared beside MpiConfig: their defaults are its members'.
#pragma once

#include "base/params.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::mpi {

inline const ParamDecls<MpiConfig>& MpiParams() {
  using C = MpiConfig;
  static const auto* decls = &(new ParamDecls<C>())
      ->Size("mpi.eager_limit", &C::eager_limit,
             "MPI: messages above this size use the rendezvous protocol");
  return *decls;
}

}  // namespace nicsim::mpi
