# SPDX-License-Identifier: Apache-2.0
# Project warning flags: applied to every nicsim target through nicsim_warnings.
add_library(nicsim_warnings INTERFACE)
target_compile_options(nicsim_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wnon-virtual-dtor -Wno-pedantic)
if(NICSIM_WERROR)
  target_compile_options(nicsim_warnings INTERFACE -Werror)
endif()
