// The safetensors format (Hugging Face): weights any framework reads without unpickling code.
// Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "value"}}
// padded with spaces to a multiple of 8, then the tensors' raw little-endian bytes, with offsets
// relative to the start of that byte buffer.
#pragma once
#include <torch/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

// Writes `tensors` in the given order, contiguous and without gaps, plus `metadata` as
// "__metadata__" (omitted when empty). Supported dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8
// BOOL. Writes a temporary file in the same folder, fsyncs and renames it over `path`, so a
// failure (missing or read-only folder, full disk, unsupported dtype, duplicate name) leaves any
// previous file untouched; it throws UserError naming the path.
void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// The tensors in the header's order (for files we write, the order they were written), as
// independent CPU tensors. Validates the whole header first: its length against the file size,
// the JSON, each dtype, shape and offsets (in range, size = numel x itemsize, no overlaps).
// Throws UserError naming the file and, where one is at fault, the tensor.
std::vector<std::pair<std::string, torch::Tensor>> read_safetensors(const std::string& path);

// The "__metadata__" strings of a safetensors file (empty when it has none); same checks.
std::map<std::string, std::string> read_safetensors_metadata(const std::string& path);

// True when `path` starts like a safetensors file: a header length that fits the file, then '{'.
// Zip archives (torch.save) start with "PK", so the two never look alike. False when unreadable.
bool looks_like_safetensors(const std::string& path);

}  // namespace trainer
