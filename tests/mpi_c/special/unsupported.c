/* Calls MPI_File_open (MPI-IO), outside nicsim's subset: building it must fail. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_File file;
  MPI_Init(&argc, &argv);
  MPI_File_open(MPI_COMM_WORLD, "data", 0, MPI_INFO_NULL, &file);
  MPI_Finalize();
  return 0;
}
