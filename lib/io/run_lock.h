// One process at a time in a run folder: a second run (or resume) started with the same
// project/name and exist_ok would interleave its checkpoints and results with the first.
#pragma once
#include <filesystem>

namespace trainer {

// Holds an exclusive flock(2) on <folder>/.lock for the object's lifetime. The kernel drops it
// when the process ends however it ends (a crash, kill -9), so a lock left by a dead run is never
// in the way; the file itself stays and is harmless. Throws UserError naming the folder (and the
// holder's pid, written into the file) when another process holds it.
class RunLock {
 public:
  explicit RunLock(const std::filesystem::path& folder);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  static std::filesystem::path file_of(const std::filesystem::path& folder) { return folder / ".lock"; }

 private:
  int fd_ = -1;
};

}  // namespace trainer
