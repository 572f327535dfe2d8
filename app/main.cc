// SPDX-License-Identifier: Apache-2.0
// The nicsim command line: run a scenario, list parameters, list built-in scenarios.
// Bad input of any kind exits with code 2 and a message naming where it went wrong.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "app/counter_docs.h"
#include "app/mpirun_args.h"
#include "app/port_args.h"
#include "app/run_args.h"
#include "app/shm_run_args.h"
#include "app/tun_args.h"
#include "app/trace_commands.h"
#include "base/heap_reuse.h"
#include "base/sanitizers.h"
#include "base/status.h"
#include "base/whole_file.h"
#include "sim/config/builtin_scenarios.h"
#include "sim/config/param_docs.h"
#include "realport/tun/tun_command.h"
#include "sim/config/param_table.h"
#include "sim/config/scenario.h"
#include "sim/distrib/mpi_world.h"
#include "sim/distrib/run_threads.h"
#include "realport/port/command.h"
#include "sim/observe/progress.h"
#include "sim/observe/results_csv.h"
#include "realport/shm_run/launcher.h"
#include "sim/run/run_scenario.h"

namespace {

using nicsim::Result;
using nicsim::Status;
namespace sim = nicsim::sim;

constexpr int kBadInput = Status::kBadInputExit;
constexpr int kRunFailed = 1;

// AddressSanitizer's leak checker runs at exit: a model left to the exit would be reported.
constexpr bool kLeakChecked = NICSIM_ADDRESS_SANITIZER;

/** Creates `dir` if needed and checks a file can be written in it, before a run starts. */
Status PrepareOutDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("--out " + dir + ": cannot create the directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Error("--out " + dir + ": not a directory");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Error("--out " + dir + ": the directory is not writable");
  }
  return Status();
}

/** A file path if one exists there, else a built-in name. */
Result<sim::Scenario> LoadScenario(const std::string& what) {
  if (what.empty()) {
    return sim::ParseScenario(*sim::BuiltinScenarioText("default"), "builtin:default");
  }
  if (std::optional<std::string_view> text = sim::BuiltinScenarioText(what);
      text && !std::filesystem::exists(what)) {
    return sim::ParseScenario(*text, "builtin:" + what);
  }
  return sim::LoadScenarioFile(what);
}

/** LoadScenario, then every --set flag in turn; the first error found. */
Result<sim::Scenario> LoadScenarioWithSets(const std::string& what,
                                           const std::vector<std::string>& sets) {
  Result<sim::Scenario> scenario = LoadScenario(what);
  if (!scenario.ok()) return scenario;
  for (const std::string& set : sets) {
    if (Status s = sim::ApplySetFlag(*scenario, set); !s.ok()) return s;
  }
  return scenario;
}

/** Runs `scenario` (read only: the threads of a split run share it). */
int CmdRun(const sim::Scenario& scenario, const std::string& out_dir,
           const sim::RunOptions& options, bool quiet) {
  const int64_t seed = scenario.params.Int("seed");
  // The output directory is checked before the run, not after it.
  if (Status s = PrepareOutDir(out_dir); !s.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", s.message().c_str());
    return kBadInput;
  }
  // A split run's progress line comes from rank 0 only.
  sim::Progress::Enable(!quiet && (options.world == nullptr || options.world->rank() == 0));
  Result<sim::RunOutcome> outcome = Status::Error("");
  try {
    outcome = sim::RunScenario(scenario, options);
  } catch (const std::bad_alloc&) {
    sim::Progress::Finish();
    std::fprintf(stderr,
                 "nicsim: out of memory: the scenario needs more host memory than this machine "
                 "gives (lower the sizes, counts or nodes) (seed %lld)\n",
                 static_cast<long long>(seed));
    return kRunFailed;
  }
  sim::Progress::Finish();
  if (!outcome.ok()) {
    std::fprintf(stderr, "nicsim: %s (seed %lld)\n", outcome.status().message().c_str(),
                 static_cast<long long>(seed));
    return kBadInput;
  }
  const sim::WorkloadResult& w = outcome->workload;
  // A split run: rank 0 writes and prints for all; the others give the same exit code.
  if (!outcome->writes_outputs) return w.passed() ? 0 : kRunFailed;
  const nlohmann::json& stats = outcome->stats;
  const std::string path = (std::filesystem::path(out_dir) / "stats.json").string();
  // Each output whole or not at all (a full disk leaves no truncated file behind).
  if (Status written = nicsim::WriteWholeFile(path, stats.dump(2) + "\n"); !written.ok()) {
    std::fprintf(stderr, "nicsim: --out %s: %s\n", out_dir.c_str(), written.message().c_str());
    return kBadInput;
  }
  // The workload's table as CSV too, named after the workload.
  const std::string csv_path =
      (std::filesystem::path(out_dir) / (scenario.params.String("workload") + ".csv")).string();
  if (Status written = nicsim::WriteWholeFile(csv_path, sim::WorkloadCsv(stats["workload"]));
      !written.ok()) {
    std::fprintf(stderr, "nicsim: --out %s: %s\n", out_dir.c_str(), written.message().c_str());
    return kBadInput;
  }
  if (!quiet) {
    std::cout << fmt::format("scenario {} ({}), backend {}, seed {}\n", scenario.name,
                             scenario.source, stats["backend"].get<std::string>(), seed);
    std::cout << outcome->workload.table;
    std::cout << fmt::format(
        "simulated {:.3f} us in {:.3f} s wall, {} events, {} packets delivered, {} drops\n",
        stats["sim_time_ns"].get<uint64_t>() / 1000.0, stats["wall_time_s"].get<double>(),
        stats["events"].get<uint64_t>(), stats["packets_delivered"].get<uint64_t>(), [&] {
          uint64_t n = 0;
          for (const auto& [k, v] : stats["drops"].items()) n += v.get<uint64_t>();
          return n;
        }());
    std::cout << outcome->split_summary;
    std::cout << "stats: " << path << "\n";
  }
  if (!w.passed()) {
    std::fprintf(stderr,
                 "nicsim: FAILED: %llu messages sent, %llu delivered once intact, %llu lost, "
                 "%llu duplicated, %llu damaged%s (seed %lld)\n",
                 static_cast<unsigned long long>(w.messages_sent),
                 static_cast<unsigned long long>(w.messages_delivered),
                 static_cast<unsigned long long>(w.messages_lost),
                 static_cast<unsigned long long>(w.messages_duplicated),
                 static_cast<unsigned long long>(w.messages_damaged),
                 w.stalled ? ", the run stalled" : "", static_cast<long long>(seed));
    for (const std::string& e : w.errors) std::fprintf(stderr, "nicsim: %s\n", e.c_str());
    std::fprintf(stderr, "nicsim: %llu verification errors (seed %lld)\n",
                 static_cast<unsigned long long>(w.error_count), static_cast<long long>(seed));
    return kRunFailed;
  }
  return 0;
}

int CmdParams(bool markdown, bool presets) {
  if (presets) {
    std::cout << sim::PresetsMarkdownTable();
    return 0;
  }
  if (markdown) {
    std::cout << sim::ParamsMarkdownTable();
    return 0;
  }
  std::cout << fmt::format("{:<26} {:<12} {:<28} {}\n", "name", "type", "default", "description");
  for (const nicsim::ParamSpec& p : sim::AllParams()) {
    std::cout << fmt::format("{:<26} {:<12} {:<28} {}\n", p.name, nicsim::ParamTypeName(p.type),
                             p.default_value, p.description);
  }
  return 0;
}

/** The cores this process may run on (its affinity: taskset, cgroups' cpusets), at least 1. */
uint32_t UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max(1, CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/**
 * CmdRun split over the threads run.threads gives it (one partition each, thread 0 writing
 * and printing, all reading the one scenario), or on this thread alone.
 */
int CmdRunOnThreads(const sim::Scenario& scenario, const std::string& out_dir,
                    const sim::RunOptions& options, bool quiet) {
  Result<uint32_t> threads = sim::distrib::RunThreads(scenario.params, UsableCores());
  if (!threads.ok()) {
    // Where run.threads was set: the scenario file's line, or the --set flag.
    const Status where = sim::LocateParamError(scenario, threads.status());
    std::fprintf(stderr, "nicsim: %s\n", where.message().c_str());
    return kBadInput;
  }
  if (*threads == 1) return CmdRun(scenario, out_dir, options, quiet);
  return sim::distrib::RunOnThreads(*threads, [&](sim::distrib::Collectives& world) {
    sim::RunOptions mine = options;
    mine.world = &world;
    return CmdRun(scenario, out_dir, mine, quiet || world.rank() != 0);
  });
}

/**
 * CmdRun, as one partition of the cluster when started by Open MPI's `mpirun -n K` (K > 1),
 * else on run.threads' threads.
 */
int CmdRunSplitOrNot(const std::string& scenario_arg, const std::vector<std::string>& sets,
                     const std::string& out_dir, sim::RunOptions options, bool quiet) {
  Result<sim::Scenario> scenario = LoadScenarioWithSets(scenario_arg, sets);
  if (!scenario.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", scenario.status().message().c_str());
    return kBadInput;
  }
  if (sim::distrib::MpiWorld::RequestedSize() <= 1) {
    return CmdRunOnThreads(*scenario, out_dir, options, quiet);
  }
  Result<std::unique_ptr<sim::distrib::MpiWorld>> world =
      sim::distrib::MpiWorld::Init(sim::distrib::MpiWorld::TimeoutSeconds());
  if (!world.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", world.status().message().c_str());
    return kBadInput;
  }
  options.world = world->get();
  const int code = CmdRun(*scenario, out_dir, options, quiet);
  // No process of a split run leaves before rank 0 has written the outputs: mpirun ends
  // the job when one exits with a failure code, which could cut rank 0's writing short.
  (*world)->Sum(0);
  return code;
}

int CmdCounters(bool markdown) {
  std::cout << (markdown ? sim::CountersMarkdown() : sim::CountersText());
  return 0;
}

int CmdScenarios() {
  for (const auto& [name, description] : sim::BuiltinScenarioList()) {
    std::cout << fmt::format("{:<12} {}\n", name, description);
  }
  return 0;
}

/** `nicsim mpirun ...`: the run of the program its options name. */
int CmdMpirun(sim::MpirunArgs args) {
  // Output to a closed pipe (`nicsim mpirun ... | head -1`) fails its writes instead of
  // killing the run: the program still runs to its end and stats.json is written. The ranks
  // get SIGPIPE back (RankProcess::Start).
  std::signal(SIGPIPE, SIG_IGN);
  if (Status s = sim::FinishMpirunArgs(&args); !s.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", s.message().c_str());
    return kBadInput;
  }
  Result<sim::RunOptions> options = sim::RecordingOf(args.run);
  if (!options.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", options.status().message().c_str());
    return kBadInput;
  }
  options->program = args.program;
  return CmdRunSplitOrNot(args.scenario, args.run.sets, args.run.out_dir, *options, args.run.quiet);
}

/** `nicsim shm-run ...`: the processes its options name. */
int CmdShmRun(const sim::ShmRunArgs& args) {
  Result<sim::ShmRunOptions> options = sim::FinishShmRunArgs(args);
  Status valid = options.ok() ? sim::ValidateShmRunOptions(&*options) : options.status();
  if (!valid.ok()) {
    std::fprintf(stderr, "nicsim: %s\n", valid.message().c_str());
    return kBadInput;
  }
  return sim::ShmRunCommand(*options);
}

}  // namespace

int main(int argc, char** argv) {
  nicsim::KeepFreedHeapForReuse();
  CLI::App app{"nicsim: NIC firmware and hardware-offload simulator"};
  // At most one subcommand; none is reported after parsing so a bad flag is named first.
  app.require_subcommand(0, 1);
  std::string scenario;
  sim::RunArgs run_args;
  CLI::App* run =
      app.add_subcommand("run", "Run a scenario (file or built-in; default: the embedded default)");
  run->add_option("scenario", scenario, "Scenario file path or built-in name");
  sim::AddRunOptions(*run, &run_args);
  bool markdown = false;
  CLI::App* params =
      app.add_subcommand("params", "List every parameter with type, default and description");
  params->add_flag("--markdown", markdown, "Print the table as Markdown (docs/scenarios.md)");
  bool presets = false;
  params->add_flag("--presets", presets,
                   "Print what each preset sets, as a Markdown table (docs/scenarios.md)");
  CLI::App* counters = app.add_subcommand(
      "counters", "List every counter and drop reason stats.json reports, with what it counts");
  counters->add_flag("--markdown", markdown, "Print the tables as Markdown (docs/stats.md)");
  app.add_subcommand("scenarios", "List the built-in scenarios");
  sim::MpirunArgs mpirun_args;
  CLI::App* mpirun = app.add_subcommand(
      "mpirun",
      "Run an MPI program built with nicsim-mpicc on the simulated cluster of SCENARIO (default: "
      "the embedded default), one process per rank; stats.json as nicsim run");
  sim::AddMpirunOptions(*mpirun, &mpirun_args);
  CLI::App* trace = app.add_subcommand("trace", "Golden firmware traces");
  trace->require_subcommand(1);
  std::string left, right, golden_dir;
  CLI::App* diff = trace->add_subcommand("diff", "Report the first divergence of two traces");
  diff->add_option("a", left, "First trace file")->required();
  diff->add_option("b", right, "Second trace file")->required();
  CLI::App* bless = trace->add_subcommand("bless", "Rewrite DIR/trace.txt from DIR/scenario.toml");
  bless->add_option("dir", golden_dir, "Golden directory (traces/NAME)")->required();
  CLI::App* check =
      trace->add_subcommand("check", "Replay DIR/scenario.toml against DIR/trace.txt");
  check->add_option("dir", golden_dir, "Golden directory (traces/NAME)")->required();
  sim::PortArgs port_args;
  CLI::App* port = app.add_subcommand(
      "port", "Exchange checked messages with a peer nicsim process over a DPDK or verbs port");
  sim::AddPortOptions(*port, &port_args);
  sim::ShmRunArgs shm_run_args;
  CLI::App* shm_run = app.add_subcommand(
      "shm-run",
      "Start N processes of PROGRAM on this machine, talking through shared-memory "
      "postboxes");
  sim::AddShmRunOptions(*shm_run, &shm_run_args);
  sim::TunOptions tun_options;
  CLI::App* tun = app.add_subcommand(
      "tun",
      "Every node's IP interface as TUN device ipif0 in network namespace PREFIX-<node> "
      "(needs root)");
  sim::AddTunOptions(*tun, &tun_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nicsim: %s\n", e.what());
    std::fprintf(stderr, "Run 'nicsim --help' for usage.\n");
    return kBadInput;
  }
  if (run->parsed()) {
    Result<sim::RunOptions> options = sim::RecordingOf(run_args);
    if (!options.ok()) {
      std::fprintf(stderr, "nicsim: %s\n", options.status().message().c_str());
      return kBadInput;
    }
    options->leave_model_to_exit = !kLeakChecked;
    return CmdRunSplitOrNot(scenario, run_args.sets, run_args.out_dir, *options, run_args.quiet);
  }
  if (mpirun->parsed()) return CmdMpirun(std::move(mpirun_args));
  if (shm_run->parsed()) return CmdShmRun(shm_run_args);
  if (tun->parsed()) return sim::RunTun(tun_options);
  if (app.got_subcommand("params")) return CmdParams(markdown, presets);
  if (app.got_subcommand("counters")) return CmdCounters(markdown);
  if (app.got_subcommand("scenarios")) return CmdScenarios();
  if (port->parsed()) {
    Result<sim::PortCommandOptions> options = sim::FinishPortArgs(*port, port_args);
    if (!options.ok()) {
      std::fprintf(stderr, "nicsim: %s\n", options.status().message().c_str());
      return kBadInput;
    }
    return sim::PortCommand(*options);
  }
  if (app.got_subcommand("trace")) {
    if (trace->got_subcommand("diff")) return sim::TraceDiffCommand(left, right);
    if (trace->got_subcommand("bless")) return sim::TraceBlessCommand(golden_dir);
    return sim::TraceCheckCommand(golden_dir);
  }
  std::fprintf(stderr,
               "nicsim: a command is required: run, mpirun, shm-run, tun, port, trace, params, "
               "counters or scenarios\n");
  std::fprintf(stderr, "Run 'nicsim --help' for usage.\n");
  return kBadInput;
}
