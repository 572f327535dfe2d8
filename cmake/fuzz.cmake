# SPDX-License-Identifier: Apache-2.0
# NICSIM_FUZZ: libFuzzer targets (fuzz/) under ASan and UBSan. Clang only: with it, every
# object is instrumented (coverage and both sanitizers, a UBSan finding aborts like a crash),
# and only the fuzz executables link libFuzzer's main. The `fuzz` preset turns it on.
option(NICSIM_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)
set(NICSIM_FUZZ_BUILD OFF)
if(NICSIM_FUZZ)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(NICSIM_FUZZ_BUILD ON)
    message(STATUS "nicsim: fuzz targets enabled (libFuzzer, ASan, UBSan)")
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
  else()
    message(STATUS "nicsim: fuzz targets skipped: NICSIM_FUZZ needs clang, "
                   "the C++ compiler is ${CMAKE_CXX_COMPILER_ID} (cmake --preset fuzz)")
  endif()
endif()
