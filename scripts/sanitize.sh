#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the tests with the debug preset (AddressSanitizer + UndefinedBehaviorSanitizer, in
# build-debug/) and runs them there; any sanitizer report fails its test.
#   scripts/sanitize.sh          the CI subset: firmware, driver, HAL, fabric, transport, MPI,
#                                RDMA validation, fuzz regressions, the verdict contract, the
#                                postbox and push-pull protocols, nicsim shm-run and the
#                                third-party block service
#   scripts/sanitize.sh --all    every test
set -euo pipefail
cd "$(dirname "$0")/.."
SUBSET_TARGETS=(nicsim firmware_test driver_test hal_test fabric_test ulp_transport_test
  ulp_mpi_test ulp_mpi_workloads_test rdma_validation_test fuzz_regression_test verdict_test
  ulp_postbox_test ulp_pushpull_test shm_run_test shm_traffic third_party_workload_test
  ulp_ip_test)
SUBSET_REGEX='^(Rx|Tx|Resources|Interrupts|AdapterDriver|RecvFifo|SendFifo|SwitchFabric|Fabric|FaultR|Transport|Mpi|Collective|RdmaValidation|Targets/FuzzRegression|Verdict|Workloads/EveryWorkload|Postbox|pushpull/|ShmRun|ShmApi|ThirdPartyWorkload|IpHeader|IpFragment|IpReassembly|IpExchange)'
cmake --preset debug >/dev/null
# Stop at the first report, and let UBSan fail the test like ASan does.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
# Third-party code the sanitizers flag (Verilator's own headers) is listed in ubsan.supp.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/scripts/ubsan.supp"
if [ "${1:-}" = "--all" ]; then
  cmake --build build-debug -j"$(nproc)"
  cd build-debug
  ctest --output-on-failure -j"$(nproc)" --timeout 1800
else
  cmake --build build-debug -j"$(nproc)" --target "${SUBSET_TARGETS[@]}"
  cd build-debug
  ctest --output-on-failure -j"$(nproc)" --timeout 1800 -R "$SUBSET_REGEX"
fi
