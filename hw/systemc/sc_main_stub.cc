// SPDX-License-Identifier: Apache-2.0
// libsystemc.so's own main() calls sc_main; nicsim programs have their own main, so this
// weak sc_main only satisfies the linker. A program that runs SystemC's main (the SystemC
// test binaries) defines a strong sc_main that replaces it.
extern "C" __attribute__((weak)) int sc_main(int /*argc*/, char** /*argv*/) { return 0; }
