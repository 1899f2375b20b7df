#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>

#include "util/error.h"
#include "util/file_write.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTemporaryMark = ".tmp-";

// The process id and a counter keep two processes, or two threads, writing the same file from
// sharing a temporary.
fs::path temporary_for(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.string() + kTemporaryMark + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// A test hook (docs/reliability.md): TRAINER_WRITE_PAUSE_MS=N holds every replacement for N ms
// between writing the whole temporary file and renaming it, so that tests and scripts/soak-resume
// can signal or kill a process inside a checkpoint write.
void pause_for_tests() {
  static const long milliseconds = [] {
    const char* value = std::getenv("TRAINER_WRITE_PAUSE_MS");
    return value ? std::strtol(value, nullptr, 10) : 0L;
  }();
  if (milliseconds > 0) std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}

// Data the kernel has accepted may still fail to reach the disk (no space for delayed blocks):
// fsync is where that shows, so its failure is the write's failure.
void sync_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot open " + path.string() + ": " + std::strerror(errno));
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0) throw UserError("cannot write " + path.string() + " to disk: " + std::strerror(error));
}

// Removes the regular files of `folder` whose names contain `mark`.
void remove_files_marked(const fs::path& folder, const std::string& mark) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().filename().string().find(mark) == std::string::npos) continue;
    std::error_code ignored;
    if (entry.is_regular_file(ignored)) fs::remove(entry.path(), ignored);
  }
}

}  // namespace

void replace_file_atomically(const fs::path& path, const std::function<void(const fs::path& temporary)>& write) {
  const fs::path temporary = temporary_for(path);
  try {
    write(temporary);
    sync_file(temporary);
    pause_for_tests();
    std::error_code error;
    fs::rename(temporary, path, error);
    if (error) throw UserError("cannot rename " + temporary.string() + " to " + path.string() + ": " + error.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  // The rename is durable once the folder is synced; failing that is not worth an error.
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void remove_stale_temporaries(const fs::path& folder) { remove_files_marked(folder, kTemporaryMark); }

void remove_stale_temporaries_of(const fs::path& path) {
  remove_files_marked(path.parent_path().empty() ? fs::path(".") : path.parent_path(),
                      path.filename().string() + kTemporaryMark);
}

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  replace_file_atomically(path, [&](const fs::path& temporary) { write_file(temporary, bytes); });
}

}  // namespace trainer
