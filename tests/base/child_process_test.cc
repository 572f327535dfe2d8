// SPDX-License-Identifier: Apache-2.0
#include "base/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace nicsim {
namespace {

/** A pipe whose read end collects what a child writes. */
struct Pipe {
  Pipe() { EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0); }
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  }
  void CloseWriteEnd() {
    close(fds[1]);
    fds[1] = -1;
  }
  std::string ReadAll() {
    std::string text;
    char buf[256];
    for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) text.append(buf, n);
    return text;
  }
  int fds[2] = {-1, -1};
};

/** Runs `script` under /bin/sh with stdout captured; its output and exit code. */
std::pair<std::string, int> RunShell(SpawnRequest request, const std::string& script) {
  Pipe out;
  request.argv = {"/bin/sh", "-c", script};
  request.stdout_fd = out.fds[1];
  Result<pid_t> pid = Spawn(request);
  out.CloseWriteEnd();
  if (!pid.ok()) return {pid.status().message(), -2};
  std::string text = out.ReadAll();
  return {text, ExitCodeOf(WaitFor(*pid))};
}

TEST(ChildProcess, SetsAndRemovesEnvironmentEntries) {
  setenv("NICSIM_CHILD_TEST_KEPT", "kept", 1);
  setenv("NICSIM_CHILD_TEST_GONE", "here", 1);
  setenv("NICSIM_CHILD_TEST_REPLACED", "old", 1);
  for (bool fork_path : {false, true}) {
    SpawnRequest request;
    request.set_env = {"NICSIM_CHILD_TEST_REPLACED=new", "NICSIM_CHILD_TEST_ADDED=a=b"};
    request.unset_env = {"NICSIM_CHILD_TEST_GONE"};
    request.die_with_parent = fork_path;
    const auto [text, code] =
        RunShell(request,
                 "echo \"$NICSIM_CHILD_TEST_KEPT|${NICSIM_CHILD_TEST_GONE-unset}|"
                 "$NICSIM_CHILD_TEST_REPLACED|$NICSIM_CHILD_TEST_ADDED\"; exit 3");
    EXPECT_EQ(text, "kept|unset|new|a=b\n") << "die_with_parent " << fork_path;
    EXPECT_EQ(code, 3);
  }
  for (const char* name :
       {"NICSIM_CHILD_TEST_KEPT", "NICSIM_CHILD_TEST_GONE", "NICSIM_CHILD_TEST_REPLACED"}) {
    unsetenv(name);
  }
}

TEST(ChildProcess, KeepsOnlyTheDescriptorsAskedFor) {
  for (bool fork_path : {false, true}) {
    Pipe kept, dropped;
    SpawnRequest request;
    request.keep_fds = {kept.fds[1]};
    request.die_with_parent = fork_path;
    const std::string script = "echo kept >&" + std::to_string(kept.fds[1]) +
                               " && echo no 2>/dev/null >&" + std::to_string(dropped.fds[1]) +
                               "; echo done";
    const auto [text, code] = RunShell(request, script);
    kept.CloseWriteEnd();
    dropped.CloseWriteEnd();
    EXPECT_EQ(text, "done\n");
    EXPECT_EQ(kept.ReadAll(), "kept\n");
    EXPECT_EQ(dropped.ReadAll(), "");
    EXPECT_EQ(code, 0);
  }
}

TEST(ChildProcess, StdinIsDevNullUnlessGiven) {
  const auto [text, code] = RunShell(SpawnRequest{}, "cat; echo end");
  EXPECT_EQ(text, "end\n");
  EXPECT_EQ(code, 0);
}

TEST(ChildProcess, AProgramThatCannotBeExecutedIsAnErrorNotAChild) {
  for (bool fork_path : {false, true}) {
    SpawnRequest request;
    request.argv = {"/nonexistent/program"};
    request.die_with_parent = fork_path;
    Result<pid_t> pid = Spawn(request);
    ASSERT_FALSE(pid.ok());
    EXPECT_EQ(pid.status().message(),
              "cannot start /nonexistent/program: No such file or directory");
  }
  EXPECT_FALSE(Spawn(SpawnRequest{}).ok());
}

TEST(ChildProcess, DefaultSignalsComeBack) {
  // The shell is started with SIGTERM ignored here; a program told to get its default back
  // dies of it.
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &old);
  for (bool restore : {false, true}) {
    SpawnRequest request;
    if (restore) request.default_signals = {SIGTERM};
    const auto [text, code] = RunShell(request, "kill -TERM $$; echo survived");
    EXPECT_EQ(text, restore ? "" : "survived\n");
    EXPECT_EQ(code, restore ? -1 : 0);
  }
  sigaction(SIGTERM, &old, nullptr);
}

TEST(ChildProcess, AWaitWithALimitKillsWhatOutlivesIt) {
  SpawnRequest request;
  request.argv = {"/bin/sleep", "100"};
  Result<pid_t> pid = Spawn(request);
  ASSERT_TRUE(pid.ok());
  bool killed = false;
  const int status = WaitFor(*pid, 0.05, &killed);
  EXPECT_TRUE(killed);
  EXPECT_EQ(DescribeWaitStatus(status), "was killed by signal 9 (Killed)");
  EXPECT_EQ(ExitCodeOf(status), -1);
  EXPECT_EQ(kill(*pid, 0), -1);  // reaped: the PID is gone
}

TEST(ChildProcess, StopAndReapSendsTheSignalFirst) {
  SpawnRequest request;
  request.argv = {"/bin/sleep", "100"};
  Result<pid_t> pid = Spawn(request);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(DescribeWaitStatus(StopAndReap(*pid, SIGINT, 30)),
            "was killed by signal 2 (Interrupt)");
}

TEST(ChildProcess, ReapIfEndedOnlyReapsAnEndedProcess) {
  SpawnRequest request;
  request.argv = {"/bin/sleep", "100"};
  Result<pid_t> pid = Spawn(request);
  ASSERT_TRUE(pid.ok());
  EXPECT_FALSE(ReapIfEnded(*pid).has_value());
  EXPECT_EQ(DescribeWaitStatus(KillAndReap(*pid)), "was killed by signal 9 (Killed)");
}

TEST(ChildProcess, ForkCallExitsWithWhatTheBodyReturns) {
  Result<pid_t> seven = ForkCall("test", [] { return 7; });
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(DescribeWaitStatus(WaitFor(*seven)), "exited with status 7");
  Result<pid_t> thrower = ForkCall("test", []() -> int { throw std::runtime_error("no"); });
  ASSERT_TRUE(thrower.ok());
  EXPECT_EQ(ExitCodeOf(WaitFor(*thrower)), 1);
}

TEST(ChildProcess, FindProgramNamesWhatIsWrong) {
  EXPECT_EQ(FindProgram("/bin/sh").value(), "/bin/sh");
  EXPECT_EQ(FindProgram("./no-such-program").status().message(), "./no-such-program: no such file");
  EXPECT_EQ(FindProgram("/etc/passwd").status().message(), "/etc/passwd: not an executable file");
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  setenv("PATH", "/nonexistent:/bin", 1);
  EXPECT_EQ(FindProgram("sh").value(), "/bin/sh");
  EXPECT_EQ(FindProgram("no-such-program-in-path").status().message(),
            "no-such-program-in-path: not found (no executable file of that name in PATH)");
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace
}  // namespace nicsim
