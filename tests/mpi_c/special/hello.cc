// A C++ program built with nicsim-mpicxx: mpi.h is usable from C++.
#include <mpi.h>

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> all(static_cast<size_t>(size));
  MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int sum = 0;
  for (int r : all) sum += r;
  std::cout << "rank " << rank << " of " << size << " sum " << sum << std::endl;
  MPI_Finalize();
  return 0;
}
