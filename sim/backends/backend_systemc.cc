// SPDX-License-Identifier: Apache-2.0
// The SystemC backend: SystemcAdapter modules elaborated into the process's SystemC kernel,
// which the cluster's event queue then steps as a co-simulator.
#include <fmt/format.h>

#include "hw/systemc/kernel.h"
#include "hw/systemc/systemc_adapter.h"
#include "sim/backends/backend.h"
#include "sim/cluster.h"

namespace nicsim::sim {
namespace {

class SystemcBackend final : public Backend {
 public:
  SystemcBackend(const ClusterConfig& config, hw::systemc::Kernel* kernel)
      : config_(config), kernel_(kernel) {}

  std::unique_ptr<hw::func::AdapterModel> MakeAdapter(hw::func::EventQueue& events,
                                                      hw::func::HostMemory& host,
                                                      uint16_t adapter_id) override {
    return std::make_unique<hw::systemc::SystemcAdapter>(
        events, host, adapter_id, config_.line_bytes, config_.timing, config_.microcode,
        config_.resources, config_.systemc);
  }

  Status Start(hw::func::EventQueue& events) override {
    kernel_->Start(config_.systemc.quantum_ps);
    events.SetCoSimulator(kernel_);
    return Status();
  }

  nlohmann::json Describe() const override {
    return {{"kernel", "systemc"},
            {"quantum_ns", static_cast<double>(config_.systemc.quantum_ps) / 1000.0},
            {"cycle_ps", config_.systemc.cycle_ps}};
  }

 private:
  const ClusterConfig& config_;
  hw::systemc::Kernel* kernel_;
};

}  // namespace

Result<std::unique_ptr<Backend>> MakeSystemcBackend(const ClusterConfig& config, bool rtl) {
  if (rtl) {
    return Status::Error("backend: 'rtl' (SystemC with Verilated RTL blocks) is not available yet");
  }
  Result<hw::systemc::Kernel*> kernel = hw::systemc::Kernel::Claim();
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<Backend>(std::make_unique<SystemcBackend>(config, *kernel));
}

}  // namespace nicsim::sim
