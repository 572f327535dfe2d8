// SPDX-License-Identifier: Apache-2.0
// ParseShmRunArgs: a small hand parser, because the program's own arguments follow shm-run's
// and must reach it untouched (a `--seed`, a `--`, a word that names a nicsim subcommand).
#include "realport/shm_run/shm_run_args.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace nicsim::sim {

namespace {

/** The flag's value: after '=' in `arg`, else the next word; an error if there is none. */
Result<std::string> Value(const std::string& flag, const std::string& arg, int argc, char** argv,
                          int* i) {
  if (arg.size() > flag.size() && arg[flag.size()] == '=') return arg.substr(flag.size() + 1);
  if (*i + 1 >= argc) return Status::Error("shm-run: " + flag + " needs a value");
  return std::string(argv[++*i]);
}

}  // namespace

Result<ShmRunOptions> ParseShmRunArgs(int argc, char** argv, int first) {
  ShmRunOptions options;
  bool have_n = false;
  int i = first;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    auto is = [&arg](const std::string& flag) {
      return arg == flag || arg.rfind(flag + "=", 0) == 0;
    };
    if (arg == "--") {
      ++i;
      break;
    }
    if (is("-n")) {
      Result<std::string> v = Value("-n", arg, argc, argv, &i);
      if (!v.ok()) return v.status();
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno != 0) {
        return Status::Error("shm-run: -n: expected a number of processes, got '" + *v + "'");
      }
      options.processes = n;
      have_n = true;
    } else if (is("--prefix")) {
      Result<std::string> v = Value("--prefix", arg, argc, argv, &i);
      if (!v.ok()) return v.status();
      options.prefix = *v;
      if (options.prefix.empty()) return Status::Error("shm-run: --prefix: empty");
    } else if (is("--timeout")) {
      Result<std::string> v = Value("--timeout", arg, argc, argv, &i);
      if (!v.ok()) return v.status();
      char* end = nullptr;
      errno = 0;
      const double s = std::strtod(v->c_str(), &end);
      if (v->empty() || *end != '\0' || errno != 0) {
        return Status::Error("shm-run: --timeout: expected seconds, got '" + *v + "'");
      }
      options.timeout_s = s;
    } else if (is("--protocol")) {
      Result<std::string> v = Value("--protocol", arg, argc, argv, &i);
      if (!v.ok()) return v.status();
      if (*v != "postbox" && *v != "pushpull") {
        return Status::Error("shm-run: --protocol: expected postbox or pushpull, got '" + *v +
                             "'");
      }
      options.protocol = *v;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return Status::Error("shm-run: unknown flag " + arg +
                           " (shm-run's flags come before the "
                           "program; see nicsim shm-run --help)");
    } else {
      break;
    }
  }
  if (!have_n) return Status::Error("shm-run: -n N is required");
  for (; i < argc; ++i) options.program.push_back(argv[i]);
  return options;
}

const char* ShmRunUsage() {
  return "Usage: nicsim shm-run -n N [--prefix P] [--timeout S] [--protocol postbox|pushpull]\n"
         "                      [--] PROGRAM [ARGS...]\n"
         "\n"
         "Starts N processes of PROGRAM on this machine as ranks 0 .. N-1, talking through\n"
         "shared-memory postboxes (the C API of ulp/postbox/shm_api.h). A rank that ends\n"
         "without nicsim_shm_finalize is marked dead: its peers get NICSIM_SHM_EPEERDEAD\n"
         "instead of hanging. At the end every segment of the run is unlinked.\n"
         "\n"
         "  -n N           processes to start (1 to 256)\n"
         "  --prefix P     name of the run's segments, /dev/shm/P-* (default nicsim-run-<pid>)\n"
         "  --timeout S    seconds before the processes are killed and the run fails\n"
         "                 (default 0: none)\n"
         "  --protocol P   postbox (reference 000, the default) or pushpull (reference 003:\n"
         "                 pushes, then the rest pulled in one copy into the receiver)\n"
         "\n"
         "Exit 0 if every process finalized and exited with status 0, 1 if not (a line names\n"
         "each process that did not), 2 on bad flags. SIGINT and SIGTERM are forwarded.\n";
}

}  // namespace nicsim::sim
