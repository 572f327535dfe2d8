/* A rank that breaks its channel to the simulator; the case is the end of the program's name:
 * huge: rank 0 writes a header claiming 2^40 - 1 bytes of arguments, 3 of them, and exits;
 * stray: rank 0 writes 3 bytes of a header and sleeps (the run's wall-clock limit ends it);
 * fork: rank 0 forks a child that sleeps 8 s holding the channel and the output pipes open,
 * and exits without MPI_Finalize;
 * overflow: rank 0 sends the arguments of an MPI_Allgather whose two counts (2^63 bytes each)
 * wrap to 0 when added, and waits for the answer. The other ranks wait in a barrier. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

/* The channel's message header (ulp/mpi/capi/wire.h). */
struct Header {
  uint32_t call;
  uint32_t reserved;
  uint64_t bytes;
  uint64_t compute_ns;
};

static int EndsWith(const char* s, const char* end) {
  const size_t n = strlen(s), m = strlen(end);
  return n >= m && strcmp(s + n - m, end) == 0;
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const int fd = atoi(getenv("NICSIM_MPI_FD"));
    if (EndsWith(argv[0], "huge")) {
      struct Header h = {9 /* kSend */, 0, (UINT64_C(1) << 40) - 1, 0};
      if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) || write(fd, "abc", 3) != 3) return 3;
      return 0;
    }
    if (EndsWith(argv[0], "stray")) {
      if (write(fd, "abc", 3) != 3) return 3;
      for (;;) poll(NULL, 0, 60000); /* on the host: the library simulates sleep() */
    }
    if (EndsWith(argv[0], "overflow")) {
      /* i32 comm, blob data (u64 0), counts (u32 2, 2 x u64 2^63) */
      unsigned char args[4 + 8 + 4 + 16] = {0};
      const int32_t world = 1;
      const uint32_t n = 2;
      const uint64_t half = UINT64_C(1) << 63;
      memcpy(args, &world, 4);
      memcpy(args + 12, &n, 4);
      memcpy(args + 16, &half, 8);
      memcpy(args + 24, &half, 8);
      struct Header h = {22 /* kAllgatherv */, 0, sizeof(args), 0};
      char reply;
      if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
          write(fd, args, sizeof(args)) != (ssize_t)sizeof(args)) {
        return 3;
      }
      return read(fd, &reply, 1) == 1 ? 4 : 0;
    }
    if (EndsWith(argv[0], "fork")) {
      if (fork() == 0) {
        sleep(8);
        _exit(0);
      }
      return 0;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
