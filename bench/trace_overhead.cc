// SPDX-License-Identifier: Apache-2.0
// Benchmark: what tracing costs when it is off. Events per wall-second of the hw/func stream as
// built (tracing compiled in, no sink attached) against the same code with tracing compiled out.
//
// This file builds twice: bench_trace_overhead (the normal libraries) and
// bench_trace_overhead_compiled_out (libraries built with NICSIM_TRACE_COMPILED_OUT, see
// bench/CMakeLists.txt). `--measure off|on FILE` runs one stream in this process and prints its
// figures as JSON; without arguments the program measures every variant in fresh processes,
// alternating their order round by round, and reports the spreads and the ratio. The ratio
// compares each variant's fastest round: the work is deterministic, so other load on the
// machine only ever slows a round down (the ratio of the medians is reported too).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/timed_stream.h"
#include "sim/cluster/cluster.h"
#include "sim/observe/trace_writer.h"

#ifndef NICSIM_TRACE_COMPILED_OUT
#include "bench/bench_report.h"
#endif

namespace {

constexpr uint64_t kPackets = 100000;
constexpr uint32_t kSize = 1024;
/** Rounds of (off, compiled out), then rounds of tracing on (fewer: each writes ~200 MB). */
constexpr int kRounds = 9;
constexpr int kOnRounds = 3;

/** One stream in this process: off (no sink) or on (every event to `trace_path`). */
int Measure(bool on, const std::string& trace_path) {
  nicsim::sim::ClusterConfig config;  // the functional backend, two nodes
  config.backend = nicsim::sim::BackendKind::kFunc;
  std::unique_ptr<nicsim::sim::TraceWriter> trace;
  if (on) {
    trace = std::make_unique<nicsim::sim::TraceWriter>(trace_path);
    if (!trace->ok()) {
      std::fprintf(stderr, "bench: cannot write %s\n", trace_path.c_str());
      return 1;
    }
    config.trace = trace.get();
    config.host_trace = trace.get();
  }
  const nicsim::bench::TimedStream t = nicsim::bench::RunTimedStream(config, kPackets, kSize);
  const nlohmann::json out = {{"wall_s", t.wall_s},
                              {"events", t.events},
                              {"sim_s", t.sim_s},
                              {"trace_lines", trace ? trace->events() : 0}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

#ifndef NICSIM_TRACE_COMPILED_OUT

struct Run {
  double events_per_s;
  uint64_t events;
  double sim_s;
  uint64_t trace_lines;
};

/** Runs `binary --measure ARGS` and parses its figures; exits on failure. */
Run MeasureIn(const std::string& binary, const std::string& args) {
  const std::string command = binary + " --measure " + args;
  std::FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  if (pipe != nullptr) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) text += buf;
  }
  if (pipe == nullptr || pclose(pipe) != 0) {
    std::fprintf(
        stderr, "bench: '%s' failed%s\n", command.c_str(),
        std::filesystem::exists(binary)
            ? ""
            : " (build it: cmake --build build --target bench_trace_overhead_compiled_out)");
    std::exit(1);
  }
  const nlohmann::json j = nlohmann::json::parse(text);
  return {j["events"].get<double>() / j["wall_s"].get<double>(), j["events"].get<uint64_t>(),
          j["sim_s"].get<double>(), j["trace_lines"].get<uint64_t>()};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double Max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

int Orchestrate(const std::string& self) {
  const std::string compiled_out = NICSIM_TRACE_OVERHEAD_COMPILED_OUT_BINARY;
  const std::filesystem::path trace =
      std::filesystem::temp_directory_path() / "nicsim_bench_trace_overhead.txt";
  std::vector<double> off, out, on, off_vs_out;
  std::vector<Run> runs;
  uint64_t trace_lines = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Alternate which variant goes first, so drift in the machine's speed cancels out.
    Run a{}, b{};
    if (round % 2 == 0) {
      a = MeasureIn(self, "off");
      b = MeasureIn(compiled_out, "off");
    } else {
      b = MeasureIn(compiled_out, "off");
      a = MeasureIn(self, "off");
    }
    off.push_back(a.events_per_s);
    out.push_back(b.events_per_s);
    off_vs_out.push_back(a.events_per_s / b.events_per_s);
    runs.push_back(a);
    runs.push_back(b);
    std::fprintf(stderr, "round %d: off %.0f, compiled out %.0f events/s (%.4f)\n", round,
                 a.events_per_s, b.events_per_s, off_vs_out.back());
  }
  // After the others: writing the trace file leaves the page cache busy for a while.
  for (int round = 0; round < kOnRounds; ++round) {
    const Run c = MeasureIn(self, "on " + trace.string());
    std::filesystem::remove(trace);
    on.push_back(c.events_per_s);
    trace_lines = c.trace_lines;
    runs.push_back(c);
    std::fprintf(stderr, "on round %d: %.0f events/s\n", round, c.events_per_s);
  }
  // Compiling the trace out must not change what the simulation does.
  for (const Run& r : runs) {
    if (r.events != runs.front().events || r.sim_s != runs.front().sim_s) {
      std::fprintf(stderr, "bench: the variants ran different simulations (%llu vs %llu events)\n",
                   static_cast<unsigned long long>(r.events),
                   static_cast<unsigned long long>(runs.front().events));
      return 1;
    }
  }
  nicsim::bench::Report report(
      "trace_overhead",
      fmt::format("events per wall-second of a 2-node stream of {} x {} B on hw/func: tracing "
                  "off (compiled in, no sink) vs compiled out, fastest of {} rounds each; "
                  "tracing on (to a file) for information",
                  kPackets, kSize, kRounds));
  report.Figure("events_per_run", static_cast<double>(runs.front().events));
  report.Figure("off_events_per_wall_s", Max(off));
  report.Figure("off_median", Median(off));
  report.Figure("off_slowest", Min(off));
  report.Figure("compiled_out_events_per_wall_s", Max(out));
  report.Figure("compiled_out_median", Median(out));
  report.Figure("compiled_out_slowest", Min(out));
  report.Figure("on_events_per_wall_s", Max(on));
  report.Figure("on_median", Median(on));
  report.Figure("on_slowest", Min(on));
  report.Figure("on_trace_lines", static_cast<double>(trace_lines));
  report.Figure("on_vs_off_percent", 100.0 * Max(on) / Max(off));
  report.Figure("off_vs_compiled_out_median_percent", 100.0 * Median(off) / Median(out));
  report.Figure("off_vs_compiled_out_round_min_percent", 100.0 * Min(off_vs_out));
  report.Figure("off_vs_compiled_out_round_max_percent", 100.0 * Max(off_vs_out));
  report.Ratio("off_vs_compiled_out", Max(off) / Max(out), /*min=*/0.95);
  return report.Finish();
}

#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--measure") {
    const std::string mode = argv[2];
#ifdef NICSIM_TRACE_COMPILED_OUT
    if (mode != "off") {
      std::fprintf(stderr, "bench: tracing is compiled out of this build\n");
      return 2;
    }
#endif
    if (mode == "off") return Measure(false, "");
    if (mode == "on" && argc == 4) return Measure(true, argv[3]);
    std::fprintf(stderr, "usage: %s [--measure off | --measure on TRACE_FILE]\n", argv[0]);
    return 2;
  }
#ifdef NICSIM_TRACE_COMPILED_OUT
  std::fprintf(stderr, "usage: %s --measure off (bench_trace_overhead runs this)\n", argv[0]);
  return 2;
#else
  return Orchestrate(std::filesystem::canonical("/proc/self/exe").string());
#endif
}
