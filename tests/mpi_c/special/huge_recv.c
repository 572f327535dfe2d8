/*
 * A receive far larger than the simulator can hold (8 PiB, beyond its address space): with
 * MPI_ERRORS_RETURN the call returns MPI_ERR_NO_MEM and the run goes on; the rank's message
 * then arrives in a buffer of the right size. A send of 4 GiB, one byte more than a message
 * carries, returns MPI_ERR_UNSUPPORTED_OPERATION at once. Meant for NP=2.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, value = 0, code, cls = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype block;
  MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &block); /* 8 MiB */
  MPI_Type_commit(&block);
  if (rank == 1) {
    MPI_Request r;
    code = MPI_Irecv(&value, 1 << 30, block, 0, 1, MPI_COMM_WORLD, &r); /* refused: never lands */
    MPI_Error_class(code, &cls);
    printf("rank 1 huge receive: %s\n", cls == MPI_ERR_NO_MEM ? "MPI_ERR_NO_MEM" : "other");
    MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1 got %d\n", value);
  } else {
    code = MPI_Send(&value, 1 << 9, block, 1, 1, MPI_COMM_WORLD); /* 4 GiB: refused */
    MPI_Error_class(code, &cls);
    printf("rank 0 4 GiB send: %s\n",
           cls == MPI_ERR_UNSUPPORTED_OPERATION ? "MPI_ERR_UNSUPPORTED_OPERATION" : "other");
    value = 42;
    MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
  }
  MPI_Type_free(&block);
  MPI_Finalize();
  return 0;
}
