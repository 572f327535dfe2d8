// SPDX-License-Identifier: Apache-2.0
// Preset tables. hps: an HPS-like switch adapter (about 2 GB/s links, microsecond MPI
// latency); pushpull-fe: the Push-Pull paper's cluster of PCs on switched 100 Mb/s Ethernet.
#include "sim/config/presets.h"

#include <fmt/format.h>

namespace nicsim::sim {

const std::vector<std::pair<std::string_view, std::string_view>>* PresetValues(
    std::string_view preset) {
  // HPS: ~2 GB/s links, cut-through switches, a host bus that bounds bidirectional traffic
  // to ~3 GB/s, and a LAPI/MPI software path that brings small-message MPI latency to
  // ~4.3 us on the default (SystemC) backend.
  static const std::vector<std::pair<std::string_view, std::string_view>> kHps = {
      {"link.bandwidth", "2GB/s"},     {"fabric.hop_latency", "300ns"},
      {"fabric.paths", "4"},           {"fabric.routing", "round_robin"},
      {"fabric.cut_through", "true"},  {"dma.latency", "300ns"},
      {"dma.bandwidth", "3GB/s"},      {"mmio.latency", "150ns"},
      {"host.poll_latency", "50ns"},   {"host.interrupt_latency", "2us"},
      {"host.cache_line", "128"},      {"ulp.send_overhead", "1050ns"},
      {"ulp.recv_overhead", "1050ns"}, {"host.cache_line_transfer", "150ns"},
  };
  static const std::vector<std::pair<std::string_view, std::string_view>> kPushPullFe = {
      {"link.bandwidth", "100Mb/s"},
      {"fabric.hop_latency", "5us"},
      {"fabric.paths", "1"},
      {"fabric.routing", "fixed"},
      {"dma.latency", "1us"},
      {"dma.bandwidth", "100MB/s"},
      {"mmio.latency", "500ns"},
      {"host.poll_latency", "200ns"},
      {"host.interrupt_latency", "10us"},
      {"host.cache_line", "64"},
      {"host.cache_line_transfer", "250ns"},
      // 64-byte lines cap a packet at 1008 bytes: keep the default sweep runnable.
      {"pingpong.sizes", "[0, 16, 64, 256, 512, 1008]"},
  };
  if (preset == "hps") return &kHps;
  if (preset == "pushpull-fe") return &kPushPullFe;
  return nullptr;
}

Status ApplyPreset(ParamValues& params, std::string_view preset) {
  if (Status s = params.SetString("preset", std::string(preset)); !s.ok()) return s;
  const auto* values = PresetValues(preset);
  if (values == nullptr) return Status::Error(fmt::format("preset: no table for '{}'", preset));
  for (const auto& [key, value] : *values) {
    if (Status s = params.SetFromText(key, value); !s.ok()) {
      return Status::Error(fmt::format("preset {}: {}", preset, s.message()));
    }
  }
  return Status();
}

}  // namespace nicsim::sim
