#include "util/file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace trainer {

int write_fully(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
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

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  // 0666 before the umask, as for any file a program creates.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw UserError("cannot create " + path.string() + ": " + std::strerror(errno));
  int error = write_fully(fd, bytes.data(), bytes.size());
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) throw UserError("cannot write " + path.string() + ": " + std::strerror(error));
}

}  // namespace trainer
