// SPDX-License-Identifier: Apache-2.0
// Test support for tests that drive real programs: a scratch directory removed afterwards,
// and running a command with its exit status, stdout and stderr captured.
#pragma once

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace nicsim::testing {

/** A fresh directory under the system temp dir, removed with its contents on destruction. */
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) != nullptr) path_ = buffer.data();
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  /** Empty if the directory could not be made. */
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/** Quotes `arg` for /bin/sh. */
inline std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/** A file's bytes ("" if it cannot be read). */
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** What a command did. */
struct CommandResult {
  /** Exit status, or -1 if the process did not exit normally (a crash). */
  int exit_code = -1;
  std::string out;
  std::string err;
};

/**
 * `text` without the one-time warning AddressSanitizer prints when a program switches stacks
 * with swapcontext (nicsim's rank contexts do): "==PID==WARNING: ASan doesn't fully support
 * makecontext/swapcontext functions ...". Output compared exactly is the program's own.
 */
inline std::string WithoutStackSwitchWarning(std::string text) {
  const std::string marker = "WARNING: ASan doesn't fully support makecontext/swapcontext";
  // Once per process: output several processes share holds one per process.
  for (size_t at; (at = text.find(marker)) != std::string::npos;) {
    const size_t begin = text.rfind('\n', at);
    const size_t line = begin == std::string::npos ? 0 : begin + 1;
    const size_t end = text.find('\n', at);
    text.erase(line, end == std::string::npos ? std::string::npos : end + 1 - line);
  }
  return text;
}

/** Runs `argv` (no shell expansion) with stdin empty; stdout and stderr land in `scratch`
 *  (stderr without AddressSanitizer's stack-switch warning). */
inline CommandResult RunCommand(const std::vector<std::string>& argv,
                                const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "stdout.txt";
  const std::filesystem::path err = scratch / "stderr.txt";
  std::string command;
  for (const std::string& arg : argv) command += (command.empty() ? "" : " ") + ShellQuote(arg);
  command += " </dev/null >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string());
  const int status = std::system(command.c_str());
  CommandResult result;
  if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.out = ReadFile(out);
  result.err = WithoutStackSwitchWarning(ReadFile(err));
  return result;
}

}  // namespace nicsim::testing
