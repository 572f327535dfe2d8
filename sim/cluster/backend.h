// SPDX-License-Identifier: Apache-2.0
// Backend selection: builds the adapter model a scenario asks for (functional, SystemC,
// SystemC with RTL blocks). Each backend lives in its own file, chosen by CMake.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "hw/func/adapter_model.h"
#include "kernel/event_queue.h"
#include "host/host_memory.h"

namespace nicsim::sim {

struct ClusterConfig;

/** Which hardware model runs the microcode. */
enum class BackendKind : uint8_t { kFunc, kSystemc, kRtl };

/** Builds adapters for one cluster. */
class Backend {
 public:
  virtual ~Backend() = default;
  /** One adapter, attached to the node's host memory and the cluster's event queue. */
  virtual std::unique_ptr<hw::func::AdapterModel> MakeAdapter(kernel::EventQueue& events,
                                                              host::HostMemory& host,
                                                              uint16_t adapter_id) = 0;
  /** Called once every adapter exists, before any traffic. */
  virtual Status Start(kernel::EventQueue& events) = 0;
  /** Called once the run is over, before the adapters go (the cluster's destructor). */
  virtual void Finish() {}
  /** Facts for stats.json (the quantum, the kernel). */
  virtual nlohmann::json Describe() const = 0;
};

/** The backend the config names, or an error saying why it is not available. */
Result<std::unique_ptr<Backend>> MakeBackend(const ClusterConfig& config);

/** Implemented by backend_systemc.cc when SystemC is built, else by backend_systemc_off.cc. */
Result<std::unique_ptr<Backend>> MakeSystemcBackend(const ClusterConfig& config, bool rtl);

}  // namespace nicsim::sim
