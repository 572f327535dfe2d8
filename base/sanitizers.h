// SPDX-License-Identifier: Apache-2.0
// Which sanitizer this translation unit is built under, as macros (0 or 1) that GCC and
// Clang both set: GCC defines __SANITIZE_*__, Clang answers __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define NICSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NICSIM_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef NICSIM_ADDRESS_SANITIZER
#define NICSIM_ADDRESS_SANITIZER 0
#endif

#if defined(__SANITIZE_THREAD__)
#define NICSIM_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NICSIM_THREAD_SANITIZER 1
#endif
#endif
#ifndef NICSIM_THREAD_SANITIZER
#define NICSIM_THREAD_SANITIZER 0
#endif
