// Writing to a file descriptor without losing short writes or their errors.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string_view>

namespace trainer {

// Writes all `size` bytes, retrying short and interrupted writes. Returns 0, or the errno of the
// write that failed (a full disk: ENOSPC, or EFBIG past the process's file-size limit).
int write_fully(int fd, const void* data, size_t size);

// Creates or truncates `path` and writes `bytes` into it; a failure is a UserError naming the file.
// Not atomic: for files nothing reads until the whole set is written (see atomic_file.h).
void write_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace trainer
