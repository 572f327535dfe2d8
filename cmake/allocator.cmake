# SPDX-License-Identifier: Apache-2.0
# The nicsim executable's allocator: jemalloc (Debian libjemalloc-dev) where found. A large
# cluster allocates and frees small objects all through its events (frames, messages,
# connection state); on the 1,024-rank allreduce of docs/architecture.md jemalloc took 0.92x
# the wall time of glibc's malloc and 5% less memory. WITH_JEMALLOC = AUTO | ON | OFF, as the
# backends. Off under the sanitizers and libFuzzer, which bring their own malloc.
set(WITH_JEMALLOC AUTO CACHE STRING "Link the nicsim executable against jemalloc: AUTO, ON or OFF")
set_property(CACHE WITH_JEMALLOC PROPERTY STRINGS AUTO ON OFF)
set(NICSIM_JEMALLOC_LIBRARY "")
# The sanitizers and libFuzzer bring their own malloc and operator new.
if(CMAKE_CXX_FLAGS MATCHES "sanitize" OR NICSIM_FUZZ)
  set(NICSIM_TOOL_ALLOCATOR ON)
else()
  set(NICSIM_TOOL_ALLOCATOR OFF)
endif()
if(WITH_JEMALLOC STREQUAL "OFF")
  message(STATUS "nicsim: jemalloc off (WITH_JEMALLOC=OFF): glibc malloc")
elseif(NICSIM_TOOL_ALLOCATOR)
  message(STATUS "nicsim: jemalloc off under the sanitizers: their malloc")
else()
  find_library(NICSIM_JEMALLOC jemalloc)
  if(NICSIM_JEMALLOC)
    message(STATUS "nicsim: allocator jemalloc (${NICSIM_JEMALLOC})")
    set(NICSIM_JEMALLOC_LIBRARY ${NICSIM_JEMALLOC})
  elseif(WITH_JEMALLOC STREQUAL "ON")
    message(FATAL_ERROR "nicsim: WITH_JEMALLOC=ON but jemalloc is not found (apt-get install libjemalloc-dev)")
  else()
    message(STATUS "nicsim: jemalloc not found (apt-get install libjemalloc-dev): glibc malloc")
  endif()
endif()

# The nicsim executable's operator new (app/packed_new.cc): each node's and rank's objects,
# built inside a base::PackNodeState, are laid out together in one reserved region. Not under
# the sanitizers and libFuzzer, whose operator new checks what they check.
if(NICSIM_TOOL_ALLOCATOR)
  set(NICSIM_PACKED_NEW OFF)
else()
  set(NICSIM_PACKED_NEW ON)
endif()
