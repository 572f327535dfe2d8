// SPDX-License-Identifier: Apache-2.0
// The shm C API outside a run: every call but init says it is not initialised, init without
// the launcher's environment says how to start the program, and every code has a text.
#include "ulp/shm/shm_api.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace {

TEST(ShmApiTest, CallsBeforeInitAreRefused) {
  char buf[4] = {};
  size_t len = 0;
  int src = 0;
  EXPECT_EQ(nicsim_shm_rank(), NICSIM_SHM_ENOTINIT);
  EXPECT_EQ(nicsim_shm_size(), NICSIM_SHM_ENOTINIT);
  EXPECT_EQ(nicsim_shm_send(0, buf, sizeof(buf)), NICSIM_SHM_ENOTINIT);
  EXPECT_EQ(nicsim_shm_recv(NICSIM_SHM_ANY_SOURCE, buf, sizeof(buf), &len, &src),
            NICSIM_SHM_ENOTINIT);
  EXPECT_EQ(nicsim_shm_finalize(), NICSIM_SHM_ENOTINIT);
  EXPECT_NE(std::string(nicsim_shm_last_error()).find("not initialised"), std::string::npos);
}

TEST(ShmApiTest, InitWithoutTheLaunchersEnvironmentSaysSo) {
  unsetenv("NICSIM_SHM_RANK");
  EXPECT_EQ(nicsim_shm_init(), NICSIM_SHM_EENV);
  EXPECT_NE(std::string(nicsim_shm_last_error()).find("start the program with nicsim shm-run"),
            std::string::npos);
  // A rank out of range is refused before any segment is looked for.
  setenv("NICSIM_SHM_RANK", "4", 1);
  setenv("NICSIM_SHM_SIZE", "4", 1);
  setenv("NICSIM_SHM_PREFIX", "/nicsim-api-test-", 1);
  EXPECT_EQ(nicsim_shm_init(), NICSIM_SHM_EENV);
  EXPECT_NE(std::string(nicsim_shm_last_error()).find("rank 4 of 4"), std::string::npos);
  // In range, but no launcher made a control segment.
  setenv("NICSIM_SHM_RANK", "1", 1);
  EXPECT_EQ(nicsim_shm_init(), NICSIM_SHM_ESYS);
  EXPECT_NE(std::string(nicsim_shm_last_error()).find("no control segment"), std::string::npos);
  unsetenv("NICSIM_SHM_RANK");
  unsetenv("NICSIM_SHM_SIZE");
  unsetenv("NICSIM_SHM_PREFIX");
}

TEST(ShmApiTest, EveryCodeHasAText) {
  EXPECT_STREQ(nicsim_shm_strerror(NICSIM_SHM_OK), "success");
  EXPECT_STREQ(nicsim_shm_strerror(NICSIM_SHM_EPEERDEAD), "peer is dead");
  EXPECT_STREQ(nicsim_shm_strerror(NICSIM_SHM_EPEERDONE), "peer has finalized");
  for (int code = NICSIM_SHM_EINVAL; code >= NICSIM_SHM_EDEADLOCK; --code) {
    EXPECT_STRNE(nicsim_shm_strerror(code), "unknown error code") << code;
  }
  EXPECT_STREQ(nicsim_shm_strerror(NICSIM_SHM_EDEADLOCK - 1), "unknown error code");
  EXPECT_STREQ(nicsim_shm_strerror(1), "unknown error code");
}

}  // namespace
