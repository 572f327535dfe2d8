/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mpi.h of nicsim: the MPI-3.1 subset a program built with nicsim-mpicc may call (listed in
 * docs/mpi_programs.md). Every call runs on the simulated cluster: each rank is a process of
 * its own that `nicsim mpirun` starts, and its calls go through the simulator's MPI layer,
 * reliable transport, HAL and adapter microcode. A call outside the subset is not declared
 * here (nicsim_mpi_calls.h), so a program that uses one fails to build (C99 and C++) or to
 * link.
 *
 * Handles are small integers, as in MPICH: comparing them with == works.
 */
#ifndef NICSIM_MPI_H
#define NICSIM_MPI_H

/* The handles, constants and error classes, then the calls. */
#include "nicsim_mpi_types.h"
#include "nicsim_mpi_calls.h"

#endif /* NICSIM_MPI_H */
