// SPDX-License-Identifier: Apache-2.0
// The program's sleeps. Between MPI_Init and MPI_Finalize, on the thread that initialised MPI,
// sleep(), usleep() and nanosleep() let the rank's simulated time pass instead of the host's
// (as SimGrid's SMPI does): MPI_Wtime shows the sleep, the other ranks go on meanwhile, and no
// wall time is spent. Elsewhere (before MPI_Init, after MPI_Finalize, on another thread, whose
// call could cross one in flight on the channel, in a child process the rank forked) they sleep
// on the host. The program links
// libnicsim_mpi before the C library, so its calls find these definitions first.
#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "ulp/mpi/capi/client.h"

using nicsim::mpi::capi::C;
using nicsim::mpi::wire::Call;
using nicsim::mpi::wire::Writer;

namespace {

/** True when a sleep of the calling thread is the rank's, in simulated time. */
bool Simulated() {
  const auto& c = C();
  return c.initialized && !c.finalized && getpid() == c.initialised_by &&
         static_cast<pid_t>(syscall(SYS_gettid)) == c.initialised_by;
}

void SleepSimulated(uint64_t ns) { C().Call(Call::kSleep, Writer().Put<uint64_t>(ns)); }

/** A sleep on the host (the C library's own nanosleep is not reachable by name from here);
 *  -1 with errno set, as nanosleep, when interrupted. */
int SleepOnHost(const struct timespec* req, struct timespec* rem) {
  return syscall(SYS_nanosleep, req, rem) == 0 ? 0 : -1;
}

/** Seconds of the longest sleep simulated (a longer one is cut to it): about 31 years. */
constexpr uint64_t kMostSleepSeconds = 1'000'000'000;

}  // namespace

extern "C" {

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (req == nullptr || req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1'000'000'000) {
    errno = EINVAL;
    return -1;
  }
  if (!Simulated()) return SleepOnHost(req, rem);
  const uint64_t seconds =
      std::min<uint64_t>(static_cast<uint64_t>(req->tv_sec), kMostSleepSeconds);
  SleepSimulated(seconds * 1'000'000'000u + static_cast<uint64_t>(req->tv_nsec));
  if (rem != nullptr) *rem = timespec{0, 0};
  return 0;
}

int usleep(useconds_t usec) {
  const timespec req{static_cast<time_t>(usec / 1'000'000),
                     static_cast<long>(usec % 1'000'000) * 1000};
  return nanosleep(&req, nullptr);
}

unsigned int sleep(unsigned int seconds) {
  timespec req{static_cast<time_t>(seconds), 0};
  timespec rem{0, 0};
  if (nanosleep(&req, &rem) == 0) return 0;
  // Interrupted on the host: the seconds left, rounded up, as the C library's sleep says.
  return static_cast<unsigned int>(rem.tv_sec) + (rem.tv_nsec > 0 ? 1 : 0);
}

}  // extern "C"
