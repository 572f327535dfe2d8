// SPDX-License-Identifier: Apache-2.0
// The functional backend and the dispatch on the backend kind.
#include "sim/cluster/backend.h"

#include "hw/func/func_adapter.h"
#include "sim/cluster/cluster.h"

namespace nicsim::sim {
namespace {

class FuncBackend final : public Backend {
 public:
  explicit FuncBackend(const ClusterConfig& config) : config_(config) {}
  std::unique_ptr<hw::func::AdapterModel> MakeAdapter(kernel::EventQueue& events,
                                                      host::HostMemory& host,
                                                      uint16_t adapter_id) override {
    return std::make_unique<hw::func::FuncAdapter>(events, host, adapter_id, config_.line_bytes,
                                                   config_.timing, config_.microcode,
                                                   config_.resources);
  }
  Status Start(kernel::EventQueue&) override { return Status(); }
  nlohmann::json Describe() const override { return {{"kernel", "func"}, {"quantum_ns", 0}}; }

 private:
  const ClusterConfig& config_;
};

}  // namespace

Result<std::unique_ptr<Backend>> MakeBackend(const ClusterConfig& config) {
  switch (config.backend) {
    case BackendKind::kFunc:
      return std::unique_ptr<Backend>(std::make_unique<FuncBackend>(config));
    case BackendKind::kSystemc:
      return MakeSystemcBackend(config, /*rtl=*/false);
    case BackendKind::kRtl:
      return MakeSystemcBackend(config, /*rtl=*/true);
  }
  return Status::Error("unknown backend");
}

}  // namespace nicsim::sim
