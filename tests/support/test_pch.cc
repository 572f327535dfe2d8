// SPDX-License-Identifier: Apache-2.0
// The one source of nicsim_test_pch, the target that builds the precompiled GoogleTest and
// GoogleMock header every test binary reuses (tests/CMakeLists.txt, nicsim_test_compile).
