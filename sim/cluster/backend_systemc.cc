// SPDX-License-Identifier: Apache-2.0
// The SystemC backend: SystemcAdapter modules elaborated into the process's SystemC kernel,
// which the cluster's event queue then steps as a co-simulator.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "hw/systemc/kernel.h"
#include "hw/systemc/systemc_adapter.h"
#if NICSIM_HAVE_RTL_ADAPTER
#include "hw/rtl/task_buffer_allocator_model.h"
#include "hw/systemc/rtl_adapter.h"
#endif
#include "sim/cluster/backend.h"
#include "sim/cluster/cluster.h"
#include "sim/distrib/split_run.h"

namespace nicsim::sim {
namespace {

/** True if this process writes adapter `id`'s waveforms: in a split run, the process that
 *  runs its node (every process builds every adapter). */
bool WritesWavesOf(const ClusterConfig& config, uint32_t id) {
  return config.split == nullptr || config.split->IsLocalNode(id / config.adapters_per_node);
}

class SystemcBackend final : public Backend {
 public:
  SystemcBackend(const ClusterConfig& config, hw::systemc::Kernel* kernel, bool rtl)
      : config_(config), kernel_(kernel), rtl_(rtl) {}

  std::unique_ptr<hw::func::AdapterModel> MakeAdapter(kernel::EventQueue& events,
                                                      host::HostMemory& host,
                                                      uint16_t adapter_id) override {
#if NICSIM_HAVE_RTL_ADAPTER
    if (rtl_) {
      return std::make_unique<hw::systemc::RtlAdapter>(
          events, host, adapter_id, config_.line_bytes, config_.timing, config_.microcode,
          config_.resources, config_.systemc,
          WritesWavesOf(config_, adapter_id) ? config_.rtl_vcd_prefix : std::string());
    }
#endif
    return std::make_unique<hw::systemc::SystemcAdapter>(
        events, host, adapter_id, config_.line_bytes, config_.timing, config_.microcode,
        config_.resources, config_.systemc);
  }

  Status Start(kernel::EventQueue& events) override {
    kernel_->Start(config_.systemc.quantum_ps);
    events.SetCoSimulator(kernel_);
    return Status();
  }

  void Finish() override { kernel_->Finish(); }

  nlohmann::json Describe() const override {
    return {{"kernel", rtl_ ? "systemc+rtl" : "systemc"},
            {"quantum_ns", static_cast<double>(config_.systemc.quantum_ps) / 1000.0},
            {"cycle_ps", config_.systemc.cycle_ps}};
  }

 private:
  const ClusterConfig& config_;
  hw::systemc::Kernel* kernel_;
  bool rtl_;
};

}  // namespace

Result<std::unique_ptr<Backend>> MakeSystemcBackend(const ClusterConfig& config, bool rtl) {
#if NICSIM_HAVE_RTL_ADAPTER
  // The RTL blocks are Verilated with their default parameters and know two line sizes.
  if (rtl && config.resources.dtbs != hw::rtl::AllocatorParams{}.num_dtbs) {
    return Status::Error(fmt::format("backend rtl: resources.dtbs must be {} (the RTL's NUM_DTBS)",
                                     hw::rtl::AllocatorParams{}.num_dtbs));
  }
  if (rtl && config.line_bytes != 64 && config.line_bytes != 128) {
    return Status::Error("backend rtl: line_bytes must be 64 or 128 (rx_dma_sequencer)");
  }
  // The VCD files open once the simulation starts, too late to report a bad path: check now.
  if (rtl && !config.rtl_vcd_prefix.empty()) {
    for (uint32_t id = 0; id < config.nodes * config.adapters_per_node; ++id) {
      if (!WritesWavesOf(config, id)) continue;
      for (const std::string& path :
           hw::systemc::RtlAdapter::VcdPaths(config.rtl_vcd_prefix, static_cast<uint16_t>(id))) {
        std::FILE* f = std::fopen(path.c_str(), "w");
        if (f == nullptr) {
          return Status::Error(
              fmt::format("rtl.vcd: cannot write {}: {}", path, std::strerror(errno)));
        }
        std::fclose(f);
      }
    }
  }
#else
  if (rtl) {
    return Status::Error(
        "backend: 'rtl' (SystemC with Verilated RTL blocks) is not available: this build has "
        "SystemC but not Verilator");
  }
#endif
  Result<hw::systemc::Kernel*> kernel = hw::systemc::Kernel::Claim();
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<Backend>(std::make_unique<SystemcBackend>(config, *kernel, rtl));
}

}  // namespace nicsim::sim
