// Writing files without losing short writes or their errors.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace trainer {

// A file created (or truncated) for writing. A failed write is kept rather than thrown: later
// writes are dropped and close() reports the first failure as a UserError naming the file (a full
// disk: ENOSPC, or EFBIG past the process's file-size limit). So a caller that cannot stop
// mid-stream, such as LibTorch's archive writer, finishes normally and the error still surfaces.
class CheckedFile {
 public:
  explicit CheckedFile(std::filesystem::path path);
  ~CheckedFile();
  CheckedFile(const CheckedFile&) = delete;
  CheckedFile& operator=(const CheckedFile&) = delete;

  // Returns `size`, whether or not the bytes reached the file.
  size_t write(const void* data, size_t size);
  void close();

 private:
  std::filesystem::path path_;
  int fd_;
  int error_ = 0;
};

// Creates or truncates `path` and writes `bytes` into it; a failure is a UserError naming the file.
// Not atomic: for files nothing reads until the whole set is written (see atomic_file.h).
void write_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace trainer
