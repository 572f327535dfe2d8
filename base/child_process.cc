// SPDX-License-Identifier: Apache-2.0
#include "base/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

extern char** environ;

namespace nicsim {
namespace {

/** How often a wait with a limit looks at the process. */
constexpr auto kPollInterval = std::chrono::milliseconds(10);

/** The argument and environment arrays of an exec, made before any fork. */
struct ExecArrays {
  std::vector<std::string> env_text;
  std::vector<std::string> arg_text;
  std::vector<char*> envp;
  std::vector<char*> argv;
};

bool NameIs(const char* entry, const std::string& name) {
  return std::strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=';
}

std::string NameOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

void MakeExecArrays(const SpawnRequest& request, ExecArrays* out) {
  for (char** e = environ; *e != nullptr; ++e) {
    bool drop = false;
    for (const std::string& name : request.unset_env) drop = drop || NameIs(*e, name);
    for (const std::string& entry : request.set_env) drop = drop || NameIs(*e, NameOf(entry));
    if (!drop) out->env_text.emplace_back(*e);
  }
  for (const std::string& entry : request.set_env) out->env_text.push_back(entry);
  out->arg_text = request.argv;
  for (std::string& e : out->env_text) out->envp.push_back(e.data());
  out->envp.push_back(nullptr);
  for (std::string& a : out->arg_text) out->argv.push_back(a.data());
  out->argv.push_back(nullptr);
}

Status CannotStart(const SpawnRequest& request, int error) {
  return Status::Error("cannot start " + request.argv.front() + ": " + std::strerror(error));
}

Result<pid_t> SpawnWithPosixSpawn(const SpawnRequest& request, ExecArrays& exec) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (request.stdin_fd < 0) {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  } else {
    posix_spawn_file_actions_adddup2(&actions, request.stdin_fd, 0);
  }
  if (request.stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, request.stdout_fd, 1);
  if (request.stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, request.stderr_fd, 2);
  // A dup2 onto itself clears close-on-exec in the child only (glibc, POSIX 2024).
  for (int fd : request.keep_fds) posix_spawn_file_actions_adddup2(&actions, fd, fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = 0;
  if (!request.default_signals.empty()) {
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : request.default_signals) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    flags |= POSIX_SPAWN_SETSIGDEF;
  }
  if (request.mask) {
    posix_spawnattr_setsigmask(&attr, &*request.mask);
    flags |= POSIX_SPAWN_SETSIGMASK;
  }
  posix_spawnattr_setflags(&attr, flags);
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, exec.argv[0], &actions, &attr, exec.argv.data(), exec.envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return CannotStart(request, rc);
  return pid;
}

/** In the child after fork: only async-signal-safe calls until the exec. Never returns;
 *  an exec that fails writes its errno to `report`. */
[[noreturn]] void ExecInChild(const SpawnRequest& request, ExecArrays& exec, pid_t parent,
                              int report) {
  if (request.mask) sigprocmask(SIG_SETMASK, &*request.mask, nullptr);
  for (int sig : request.default_signals) signal(sig, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have gone before the request took hold.
  if (getppid() != parent) _exit(127);
  const int in = request.stdin_fd >= 0 ? request.stdin_fd : open("/dev/null", O_RDONLY);
  if (in >= 0 && in != 0) dup2(in, 0);
  if (request.stdout_fd >= 0 && request.stdout_fd != 1) dup2(request.stdout_fd, 1);
  if (request.stderr_fd >= 0 && request.stderr_fd != 2) dup2(request.stderr_fd, 2);
  for (int fd : request.keep_fds) fcntl(fd, F_SETFD, 0);
  execve(exec.argv[0], exec.argv.data(), exec.envp.data());
  const int error = errno;
  ssize_t ignored = write(report, &error, sizeof(error));
  (void)ignored;
  _exit(127);
}

Result<pid_t> SpawnWithFork(const SpawnRequest& request, ExecArrays& exec) {
  // The exec's outcome comes back through a pipe that the exec closes: end of file is
  // success, an errno is the exec's failure.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return CannotStart(request, errno);
  const pid_t parent = getpid();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    ExecInChild(request, exec, parent, report[1]);
  }
  close(report[1]);
  if (pid < 0) {
    const int error = errno;
    close(report[0]);
    return CannotStart(request, error);
  }
  int error = 0;
  ssize_t n;
  while ((n = read(report[0], &error, sizeof(error))) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof(error))) {
    WaitFor(pid);
    return CannotStart(request, error);
  }
  return pid;
}

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

Result<pid_t> Spawn(const SpawnRequest& request) {
  if (request.argv.empty()) return Status::Error("cannot start a program without a name");
  ExecArrays exec;
  MakeExecArrays(request, &exec);
  return request.die_with_parent ? SpawnWithFork(request, exec)
                                 : SpawnWithPosixSpawn(request, exec);
}

Result<pid_t> ForkCall(const std::string& name, const std::function<int()>& body) {
  const pid_t parent = getpid();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) return Status::Error(name + ": fork: " + std::strerror(errno));
  if (pid > 0) return pid;
  // The child must not outlive a parent that died mid-run (it could wait for it for ever).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  int code = 1;
  try {
    code = body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s (child): %s\n", name.c_str(), e.what());
  }
  std::fflush(nullptr);
  _exit(code);
}

std::optional<int> ReapIfEnded(pid_t pid) {
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (got != pid) return std::nullopt;
  return status;
}

int WaitFor(pid_t pid, double limit_s, bool* killed) {
  if (killed != nullptr) *killed = false;
  if (limit_s > 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    while (std::chrono::steady_clock::now() < end) {
      if (const std::optional<int> status = ReapIfEnded(pid)) return *status;
      std::this_thread::sleep_for(kPollInterval);
    }
    if (killed != nullptr) *killed = true;
    kill(pid, SIGKILL);  // a process this program started, by its PID
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int KillAndReap(pid_t pid) {
  kill(pid, SIGKILL);  // a process this program started, by its PID
  return WaitFor(pid);
}

int StopAndReap(pid_t pid, int sig, double grace_s) {
  kill(pid, sig);  // a process this program started, by its PID
  return WaitFor(pid, grace_s);
}

std::string DescribeWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

int ExitCodeOf(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

Result<std::string> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    struct stat st {};
    if (stat(name.c_str(), &st) != 0) return Status::Error(name + ": no such file");
    if (!IsExecutableFile(name)) return Status::Error(name + ": not an executable file");
    return name;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (IsExecutableFile(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  struct stat st {};
  const std::string hint =
      stat(name.c_str(), &st) == 0 ? " (for the file here, say ./" + name + ")" : "";
  return Status::Error(name + ": not found (no executable file of that name in PATH)" + hint);
}

}  // namespace nicsim
