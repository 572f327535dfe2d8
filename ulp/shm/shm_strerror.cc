// SPDX-License-Identifier: Apache-2.0
// The texts of shm_api.h's error codes.
#include "ulp/shm/shm_api.h"

namespace {

/** Texts of the error codes, indexed by -code. */
constexpr const char* kErrorTexts[] = {
    "success",
    "invalid argument",
    "not initialised (nicsim_shm_init not called, or already finalized)",
    "not started by nicsim shm-run (its environment variables are missing or malformed)",
    "shared-memory segment could not be made or mapped",
    "peer is dead",
    "peer has finalized",
    "message longer than the buffer",
    "peer broke the postbox protocol",
    "receive could never complete",
};

}  // namespace

extern "C" const char* nicsim_shm_strerror(int code) {
  constexpr int kCount = static_cast<int>(sizeof(kErrorTexts) / sizeof(kErrorTexts[0]));
  if (code > 0 || -code >= kCount) return "unknown error code";
  return kErrorTexts[-code];
}
