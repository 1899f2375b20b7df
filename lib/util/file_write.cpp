#include "util/file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace trainer {
namespace {

// Writes all `size` bytes, retrying short and interrupted writes; 0 or the failing write's errno.
int write_fully(int fd, const char* bytes, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return 0;
}

}  // namespace

// 0666 before the umask, as for any file a program creates.
CheckedFile::CheckedFile(std::filesystem::path path)
    : path_(std::move(path)), fd_(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) {
  if (fd_ < 0) throw UserError("cannot create " + path_.string() + ": " + std::strerror(errno));
}

CheckedFile::~CheckedFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t CheckedFile::write(const void* data, size_t size) {
  if (error_ == 0) error_ = write_fully(fd_, static_cast<const char*>(data), size);
  return size;
}

void CheckedFile::close() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && error_ == 0) error_ = errno;
  if (error_ != 0) throw UserError("cannot write " + path_.string() + ": " + std::strerror(error_));
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  CheckedFile file(path);
  file.write(bytes.data(), bytes.size());
  file.close();
}

}  // namespace trainer
