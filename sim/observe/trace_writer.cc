// SPDX-License-Identifier: Apache-2.0
// Trace text format. Fields absent for an event kind are written as '-', so every line has
// the same columns: time_ps adapter kind task state window cb dtb value.
#include "sim/observe/trace_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "firmware/counters.h"
#include "firmware/states.h"
#include "base/text.h"

namespace nicsim::sim {
namespace {

std::string Id(uint32_t id, uint32_t none) { return id == none ? "-" : std::to_string(id); }

std::string StateName(const fw::TraceEvent& e) {
  switch (e.kind) {
    case fw::TraceKind::kRxState:
      return std::string(fw::ToString(static_cast<fw::RxState>(e.state)));
    case fw::TraceKind::kTxState:
      return std::string(fw::ToString(static_cast<fw::TxState>(e.state)));
    case fw::TraceKind::kWorkState:
      return std::string(fw::ToString(static_cast<fw::WorkState>(e.state)));
    case fw::TraceKind::kDrop:
      return std::string(fw::ToString(static_cast<fw::DropReason>(e.value)));
    case fw::TraceKind::kWait:
      return std::string(fw::kResourceNames[e.value]);
    case fw::TraceKind::kDmaStart:
    case fw::TraceKind::kDmaDone:
      return e.state == 0 ? "to_host" : "from_host";
    case fw::TraceKind::kLinkOut:
      return "to_a" + std::to_string(e.state);
    case fw::TraceKind::kMmio: {
      static constexpr const char* kWindowCommands[] = {"start_transmit", "return_recv_frames",
                                                        "set_recv_threshold", "set_send_threshold",
                                                        "set_interrupt_mode"};
      static constexpr const char* kGlobalCommands[] = {"close_window", "flush_lmt",
                                                        "handler_ready", "reset_adapter"};
      if (e.state >= 0x100) return kGlobalCommands[(e.state - 0x100) % 4];
      return kWindowCommands[e.state % 5];
    }
    case fw::TraceKind::kRcxt: {
      static constexpr const char* kRcxtStates[] = {"free", "idle", "sending", "receiving",
                                                    "awaiting"};
      return e.state < 5 ? kRcxtStates[e.state] : "-";
    }
    case fw::TraceKind::kCondition:
      return "queue" + std::to_string(e.state);
    default:
      return "-";
  }
}

constexpr const char* kKindNames[] = {"rx",        "tx",        "drop",      "wait",
                                      "intr",      "mmio",      "close",     "reset",
                                      "lmt_fetch", "lmt_flush", "dma_start", "dma_done",
                                      "link_out",  "frame_in",  "rcxt",      "addr_exception",
                                      "condition", "snapshot",  "wm"};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) ==
                  static_cast<size_t>(fw::TraceKind::kWorkState) + 1,
              "a name for every trace kind");

}  // namespace

std::string_view TraceKindName(fw::TraceKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

Result<TraceFilter> TraceFilter::Parse(std::string_view text) {
  TraceFilter f;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::Error(
          fmt::format("--trace-filter: '{}': expected key=value", Printable(item)));
    }
    const std::string_view key = item.substr(0, eq);
    std::string_view values = item.substr(eq + 1);
    while (true) {
      const size_t bar = values.find('|');
      const std::string value(values.substr(0, bar));
      if (key == "kind") {
        bool known = false;
        for (const char* name : kKindNames) known = known || value == name;
        for (HostTraceKind kind : kHostTraceKinds) {
          known = known || value == HostTraceKindName(kind);
        }
        if (!known) {
          return Status::Error(fmt::format("--trace-filter: unknown kind '{}'", Printable(value)));
        }
        f.kinds.push_back(value);
      } else if (key == "adapter" || key == "window") {
        char* end = nullptr;
        const unsigned long n = std::strtoul(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || n > 0xFFFFFFFFul) {
          return Status::Error(
              fmt::format("--trace-filter: {}: '{}' is not a number", key, Printable(value)));
        }
        if (key == "adapter") {
          f.adapters.push_back(static_cast<uint16_t>(n));
        } else {
          f.windows.push_back(static_cast<uint32_t>(n));
        }
      } else {
        return Status::Error(fmt::format(
            "--trace-filter: unknown key '{}' (adapter, window or kind)", Printable(key)));
      }
      if (bar == std::string_view::npos) break;
      values = values.substr(bar + 1);
    }
  }
  return f;
}

bool TraceFilter::Keeps(uint16_t adapter, uint32_t window, std::string_view kind) const {
  const auto has = [](const auto& set, const auto& v) {
    return set.empty() || std::find(set.begin(), set.end(), v) != set.end();
  };
  return has(adapters, adapter) && has(windows, window) && has(kinds, kind);
}

bool TraceFilter::Keeps(uint16_t adapter, const fw::TraceEvent& e) const {
  return Keeps(adapter, e.window, TraceKindName(e.kind));
}

bool TraceFilter::Keeps(uint16_t adapter, const HostTraceEvent& e) const {
  return Keeps(adapter, e.window, HostTraceKindName(e.kind));
}

std::string FormatTraceEvent(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& e) {
  return fmt::format("{} a{} {} task={} state={} window={} cb={} dtb={} value={}", time_ps, adapter,
                     kKindNames[static_cast<size_t>(e.kind)], Id(e.task, fw::kNoTask), StateName(e),
                     e.window, Id(e.cb, fw::kNoCb), Id(e.dtb, fw::kNoDtb), e.value);
}

std::string FormatHostTraceEvent(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& e) {
  return fmt::format("{} a{} {} task=- state=- window={} cb=- dtb=- value={}", time_ps, adapter,
                     HostTraceKindName(e.kind), e.window, e.value);
}

namespace {

std::FILE* OpenTraceFile(const std::string& path, TraceWriter::Open open) {
  if (open == TraceWriter::Open::kTruncate) return std::fopen(path.c_str(), "w");
  // O_EXCL fails on any existing name, a dangling symlink included; O_NOFOLLOW says so twice.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) ::close(fd);
  return file;
}

}  // namespace

TraceWriter::TraceWriter(const std::string& path, TraceFilter filter, Open open)
    : file_(OpenTraceFile(path, open)), filter_(std::move(filter)) {}

TraceWriter::~TraceWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

bool TraceWriter::Close() {
  if (file_ == nullptr) return false;
  const bool written = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  return written && closed;
}

void TraceWriter::Record(uint64_t time_ps, uint16_t adapter, const fw::TraceEvent& event) {
  if (filter_.Keeps(adapter, event)) WriteLine(FormatTraceEvent(time_ps, adapter, event));
}

void TraceWriter::RecordHost(uint64_t time_ps, uint16_t adapter, const HostTraceEvent& event) {
  if (filter_.Keeps(adapter, event)) WriteLine(FormatHostTraceEvent(time_ps, adapter, event));
}

void TraceWriter::WriteLine(std::string_view line) {
  if (file_ == nullptr) return;  // closed: the run is over
  ++events_;
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
}

}  // namespace nicsim::sim
