// Writing to a file descriptor without losing short writes or their errors.
#pragma once
#include <cstddef>

namespace trainer {

// Writes all `size` bytes, retrying short and interrupted writes. Returns 0, or the errno of the
// write that failed (a full disk: ENOSPC, or EFBIG past the process's file-size limit).
int write_fully(int fd, const void* data, size_t size);

}  // namespace trainer
