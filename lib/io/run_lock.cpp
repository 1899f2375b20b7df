#include "io/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/error.h"

namespace trainer {
namespace {

std::string holder_of(int fd) {
  char buffer[32] = {};
  const ssize_t size = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  const std::string pid = size > 0 ? std::string(buffer, static_cast<size_t>(size)) : "";
  return pid.empty() ? "another process" : "process " + pid.substr(0, pid.find_first_not_of("0123456789"));
}

}  // namespace

RunLock::RunLock(const std::filesystem::path& folder) {
  const std::filesystem::path file = file_of(folder);
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError("cannot open the run lock " + file.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = error == EWOULDBLOCK ? holder_of(fd_) : "";
    ::close(fd_);
    if (error != EWOULDBLOCK) throw UserError("cannot lock " + file.string() + ": " + std::strerror(error));
    throw UserError("another run is writing " + folder.string() + " (" + holder + " holds " + file.string() +
                    "); wait for it to end, or give another name= (or drop exist_ok)");
  }
  // The holder's pid, for the message above; a failure to write it only makes that message vaguer.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

RunLock::~RunLock() { ::close(fd_); }

}  // namespace trainer
