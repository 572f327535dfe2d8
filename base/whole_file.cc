// SPDX-License-Identifier: Apache-2.0
#include "base/whole_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace nicsim {
namespace {

Status Failed(const std::string& path, const char* step) {
  return Status::Error("cannot write " + path + " (" + step + ": " + std::strerror(errno) + ")");
}

}  // namespace

Status WriteWholeFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Failed(path, "open");
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const Status error = Failed(path, "write");
      close(fd);
      unlink(temporary.c_str());
      return error;
    }
    written += static_cast<size_t>(n);
  }
  // A device that takes no data to disk (a pipe, /dev/null) cannot be synced: that is no loss.
  if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const Status error = Failed(path, "fsync");
    close(fd);
    unlink(temporary.c_str());
    return error;
  }
  if (close(fd) != 0) {
    const Status error = Failed(path, "close");
    unlink(temporary.c_str());
    return error;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const Status error = Failed(path, "rename");
    unlink(temporary.c_str());
    return error;
  }
  return Status();
}

}  // namespace nicsim
