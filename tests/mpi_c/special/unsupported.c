/* Calls MPI_Win_create, outside nicsim's subset: building it must fail. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Win win;
  int x = 0;
  MPI_Init(&argc, &argv);
  MPI_Win_create(&x, sizeof(x), sizeof(x), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Finalize();
  return 0;
}
