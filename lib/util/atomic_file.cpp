#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace trainer {
namespace {

namespace fs = std::filesystem;

void fsync_path(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void replace_file_atomically(const fs::path& path, const std::function<void(const fs::path& temporary)>& write) {
  // The process id keeps two processes writing the same file from sharing a temporary.
  const fs::path temporary = path.string() + ".tmp-" + std::to_string(::getpid());
  try {
    write(temporary);
    fsync_path(temporary, O_RDONLY);
    fs::rename(temporary, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  // The rename is durable once the folder is synced; failing that is not worth an error.
  fsync_path(path.parent_path().empty() ? "." : path.parent_path(), O_RDONLY | O_DIRECTORY);
}

}  // namespace trainer
