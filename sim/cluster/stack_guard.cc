// SPDX-License-Identifier: Apache-2.0
#include "sim/cluster/stack_guard.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/check.h"
#include "base/sanitizers.h"
#include "sim/cluster/rank_scheduler.h"

namespace nicsim::sim {
namespace {

struct Guard {
  uintptr_t begin;
  uintptr_t end;
  uint32_t rank;
};

/**
 * The guards of the ranks this thread runs (a run split over threads has a scheduler per
 * thread), read by the handler on the thread that overflowed: changed only outside it.
 */
std::vector<Guard>& Guards() {
  thread_local std::vector<Guard> guards;
  return guards;
}

/** Appends the decimal digits of `value` at `out`; returns the end. */
char* AppendNumber(char* out, uint64_t value) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) *out++ = digits[--n];
  return out;
}

char* AppendText(char* out, const char* text) {
  const size_t len = std::strlen(text);
  std::memcpy(out, text, len);
  return out + len;
}

void OnSegv(int signal, siginfo_t* info, void* /*context*/) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const Guard& g : Guards()) {
    if (address < g.begin || address >= g.end) continue;
    // Only async-signal-safe calls from here: format by hand, write(2), _exit(2).
    char message[200];
    char* p = AppendText(message, "nicsim: MPI rank ");
    p = AppendNumber(p, g.rank);
    p = AppendText(p, " overflowed its stack of ");
    p = AppendNumber(p, kRankStackBytes / 1024);
    p = AppendText(p,
                   " KiB (deep recursion or large local arrays in its program; "
                   "mpi.scheduler=threads gives ranks 8 MiB stacks); no stats.json\n");
    const ssize_t written = write(STDERR_FILENO, message, static_cast<size_t>(p - message));
    static_cast<void>(written);
    _exit(1);
  }
  // Not a rank's guard: the default action, when the faulting access runs again.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, nullptr);
}

// Not called where AddressSanitizer owns SIGSEGV (NICSIM_ADDRESS_SANITIZER).
[[maybe_unused]] void InstallHandler() {
  // The overflowing stack has no room left: the handler runs on a stack of its own, one per
  // thread that runs ranks.
  thread_local std::vector<char> alt;
  if (alt.empty()) {
    alt.resize(std::max<size_t>(SIGSTKSZ, 64 * 1024));
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    NICSIM_CHECK(sigaltstack(&ss, nullptr) == 0, "cannot set the signal stack for rank guards");
  }
  // Once per process, whichever thread comes first.
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &OnSegv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    NICSIM_CHECK(sigaction(SIGSEGV, &sa, nullptr) == 0, "cannot install the rank guard handler");
  });
}

}  // namespace

void WatchStackGuard(const void* guard, size_t bytes, uint32_t rank) {
#if NICSIM_ADDRESS_SANITIZER
  static_cast<void>(guard), static_cast<void>(bytes), static_cast<void>(rank);
#else
  InstallHandler();
  const auto begin = reinterpret_cast<uintptr_t>(guard);
  Guards().push_back({begin, begin + bytes, rank});
#endif
}

void UnwatchStackGuard(const void* guard) {
  auto& guards = Guards();
  const auto begin = reinterpret_cast<uintptr_t>(guard);
  guards.erase(std::remove_if(guards.begin(), guards.end(),
                              [begin](const Guard& g) { return g.begin == begin; }),
               guards.end());
}

}  // namespace nicsim::sim
