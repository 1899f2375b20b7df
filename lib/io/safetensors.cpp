#include "io/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/json_reader.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_write.h"

namespace trainer {
namespace {

// The format is little-endian and tensors are copied byte for byte.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

// What the reference implementation accepts; a larger header only comes from a corrupt file and
// would otherwise be allocated before anything is checked.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeName {
  const char* name;
  at::ScalarType type;
};
// LibTorch 1.13 has no U16/U32/U64 or float8 types, so those stay unknown here.
constexpr DtypeName kDtypes[] = {
    {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf}, {"BF16", at::kBFloat16},
    {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
    {"U8", at::kByte},    {"BOOL", at::kBool},
};

const char* dtype_name(at::ScalarType type) {
  for (const auto& dtype : kDtypes) {
    if (dtype.type == type) return dtype.name;
  }
  return nullptr;
}

bool dtype_of(const std::string& name, at::ScalarType& out) {
  for (const auto& dtype : kDtypes) {
    if (name == dtype.name) {
      out = dtype.type;
      return true;
    }
  }
  return false;
}

bool valid_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    uint32_t code = 0, minimum = 0;
    if (byte < 0x80) {
      ++i;
      continue;
    } else if ((byte & 0xE0) == 0xC0) {
      length = 2, code = byte & 0x1F, minimum = 0x80;
    } else if ((byte & 0xF0) == 0xE0) {
      length = 3, code = byte & 0x0F, minimum = 0x800;
    } else if ((byte & 0xF8) == 0xF0) {
      length = 4, code = byte & 0x07, minimum = 0x10000;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (size_t j = 1; j < length; ++j) {
      const auto next = static_cast<unsigned char>(text[i + j]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) return false;
    i += length;
  }
  return true;
}

uint64_t read_le64(const unsigned char* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

// One tensor's header entry, validated.
struct Entry {
  std::string name;
  at::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

struct Header {
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  ///< file offset of the byte buffer
};

// A plain non-negative integer that fits 64 bits (no sign, fraction or exponent).
bool to_uint64(const Json& value, uint64_t& out) {
  if (!value.is_number_unsigned()) return false;
  out = value.get<uint64_t>();
  return true;
}

Entry parse_entry(const std::string& path, const std::string& name, const Json& info, uint64_t data_size) {
  const auto bad = [&](const std::string& what) {
    return UserError(path + ": tensor '" + name + "' " + what);
  };
  if (!info.is_object()) throw bad("is not described by a JSON object");
  Entry entry;
  entry.name = name;

  const auto dtype = info.find("dtype");
  if (dtype == info.end() || !dtype->is_string()) throw bad("has no \"dtype\" string");
  if (!dtype_of(dtype->get<std::string>(), entry.dtype)) {
    throw bad("has dtype \"" + dtype->get<std::string>() +
              "\", which this trainer does not read (known: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
  }

  const auto shape = info.find("shape");
  if (shape == info.end() || !shape->is_array()) throw bad("has no \"shape\" array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const Json& dim : *shape) {
    uint64_t size = 0;
    if (!to_uint64(dim, size) || size > uint64_t(INT64_MAX)) throw bad("has a shape entry that is not a size");
    entry.shape.push_back(int64_t(size));
    overflow = overflow || __builtin_mul_overflow(numel, size, &numel);
  }
  const uint64_t itemsize = c10::elementSize(entry.dtype);
  uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(numel, itemsize, &bytes);

  const auto offsets = info.find("data_offsets");
  if (offsets == info.end() || !offsets->is_array() || offsets->size() != 2 || !to_uint64((*offsets)[0], entry.begin) ||
      !to_uint64((*offsets)[1], entry.end)) {
    throw bad("has no \"data_offsets\" pair of byte offsets");
  }
  if (entry.end < entry.begin) {
    throw bad("has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
              "] that end before they begin");
  }
  if (entry.end > data_size) {
    throw bad("has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
              "] past the end of the data (" + std::to_string(data_size) + " bytes; is the file truncated?)");
  }
  if (overflow || entry.end - entry.begin != bytes) {
    throw bad("has " + std::to_string(entry.end - entry.begin) + " bytes of data but its shape and dtype need " +
              (overflow ? std::string("more than 2^64") : std::to_string(bytes)));
  }
  return entry;
}

Header read_header(std::ifstream& file, const std::string& path) {
  file.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(file.tellg());
  file.seekg(0);
  unsigned char prefix[8];
  if (file_size < 8 || !file.read(reinterpret_cast<char*>(prefix), 8)) {
    throw UserError(path + ": not a safetensors file (shorter than its 8-byte header length)");
  }
  const uint64_t header_size = read_le64(prefix);
  if (header_size > file_size - 8) {
    throw UserError(path + ": not a safetensors file, or truncated (header length " + std::to_string(header_size) +
                    " exceeds the " + std::to_string(file_size - 8) + " bytes after it)");
  }
  if (header_size > kMaxHeaderBytes) {
    throw UserError(path + ": safetensors header of " + std::to_string(header_size) + " bytes is over the " +
                    std::to_string(kMaxHeaderBytes) + "-byte limit");
  }
  std::string text(header_size, '\0');
  if (!file.read(text.data(), std::streamsize(header_size))) throw UserError(path + ": cannot read its header");
  if (!valid_utf8(text)) throw UserError(path + ": safetensors header is not UTF-8");

  Json json;
  try {
    json = parse_json(text);
  } catch (const JsonError& error) {
    throw UserError(path + ": corrupt safetensors header (" + error.what() + ")");
  }
  if (!json.is_object()) throw UserError(path + ": safetensors header is not a JSON object");

  Header header;
  header.data_start = 8 + header_size;
  const uint64_t data_size = file_size - header.data_start;
  for (const auto& [name, info] : json.items()) {
    if (name != kMetadataKey) {
      header.entries.push_back(parse_entry(path, name, info, data_size));
      continue;
    }
    if (!info.is_object()) throw UserError(path + ": \"__metadata__\" is not a JSON object");
    for (const auto& [key, value] : info.items()) {
      if (!value.is_string()) throw UserError(path + ": \"__metadata__\" entry '" + key + "' is not a string");
      header.metadata.emplace(key, value.get<std::string>());
    }
  }

  // Gaps between tensors are tolerated (nothing is lost by skipping them); overlaps are not.
  std::vector<const Entry*> by_offset;
  for (const Entry& entry : header.entries) by_offset.push_back(&entry);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const Entry& previous = *by_offset[i - 1];
    const Entry& current = *by_offset[i];
    if (current.begin < previous.end) {
      throw UserError(path + ": tensor '" + current.name + "' overlaps tensor '" + previous.name +
                      "' (data_offsets [" + std::to_string(current.begin) + ", " + std::to_string(current.end) +
                      "] and [" + std::to_string(previous.begin) + ", " + std::to_string(previous.end) + "])");
    }
  }
  return header;
}

std::ifstream open_for_reading(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UserError("cannot open '" + path + "': " + std::strerror(errno));
  return file;
}

}  // namespace

void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const auto refuse = [&](const std::string& what) {
    return UserError("cannot write " + path + ": " + what);
  };
  // Everything is checked and laid out before a file is touched.
  Json header_json = Json::object();
  if (!metadata.empty()) {
    Json strings = Json::object();
    for (const auto& [key, value] : metadata) {
      if (!valid_utf8(key) || !valid_utf8(value)) throw refuse("metadata entry '" + key + "' is not UTF-8");
      strings[key] = value;
    }
    header_json[kMetadataKey] = std::move(strings);
  }
  std::vector<torch::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == kMetadataKey) throw refuse("a tensor cannot be named \"__metadata__\"");
    if (header_json.contains(name)) throw refuse("tensor name '" + name + "' appears twice");
    if (!valid_utf8(name)) throw refuse("tensor name '" + name + "' is not UTF-8");
    if (!tensor.defined()) throw refuse("tensor '" + name + "' is undefined");
    const char* dtype = dtype_name(tensor.scalar_type());
    if (!dtype) {
      throw refuse("tensor '" + name + "' has dtype " + std::string(c10::toString(tensor.scalar_type())) +
                   ", which safetensors files here do not store");
    }
    torch::Tensor bytes = tensor.detach().to(torch::kCPU).contiguous();
    const uint64_t end = offset + bytes.nbytes();
    header_json[name] = {{"dtype", dtype}, {"shape", bytes.sizes().vec()}, {"data_offsets", {offset, end}}};
    offset = end;
    data.push_back(std::move(bytes));
  }
  std::string header = header_json.dump();
  // Spaces are JSON whitespace; the padding keeps the byte buffer 8-byte aligned in the file.
  header.append((8 - header.size() % 8) % 8, ' ');
  unsigned char prefix[8];
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(uint64_t(header.size()) >> (8 * i));

  try {
    replace_file_atomically(path, [&](const std::filesystem::path& temporary) {
      CheckedFile file(temporary);
      file.write(prefix, sizeof prefix);
      file.write(header.data(), header.size());
      for (const torch::Tensor& tensor : data) file.write(tensor.data_ptr(), tensor.nbytes());
      file.close();
    });
  } catch (const std::exception& error) {
    throw UserError("cannot write " + path + " (" + error.what() + "); the previous file, if any, is unchanged");
  }
}

std::vector<std::pair<std::string, torch::Tensor>> read_safetensors(const std::string& path) {
  std::ifstream file = open_for_reading(path);
  const Header header = read_header(file, path);
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const Entry& entry : header.entries) {
    // A fresh, aligned tensor per entry: offsets in the file need not be aligned to the dtype.
    torch::Tensor tensor = torch::empty(entry.shape, torch::TensorOptions().dtype(entry.dtype));
    const uint64_t size = entry.end - entry.begin;
    if (size > 0) {
      file.seekg(std::streamoff(header.data_start + entry.begin));
      if (!file.read(static_cast<char*>(tensor.data_ptr()), std::streamsize(size))) {
        throw UserError(path + ": cannot read the data of tensor '" + entry.name + "'");
      }
    }
    if (entry.dtype == at::kBool) {
      // Any byte other than 0 or 1 in a bool tensor is undefined behaviour in ATen's kernels.
      const auto* bytes = static_cast<const unsigned char*>(tensor.data_ptr());
      for (uint64_t i = 0; i < size; ++i) {
        if (bytes[i] > 1) throw UserError(path + ": tensor '" + entry.name + "' (BOOL) holds a byte other than 0 or 1");
      }
    }
    tensors.emplace_back(entry.name, std::move(tensor));
  }
  return tensors;
}

std::map<std::string, std::string> read_safetensors_metadata(const std::string& path) {
  std::ifstream file = open_for_reading(path);
  return read_header(file, path).metadata;
}

bool looks_like_safetensors(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  unsigned char prefix[9];
  if (!file.read(reinterpret_cast<char*>(prefix), sizeof prefix)) return false;
  file.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(file.tellg());
  const uint64_t header_size = read_le64(prefix);
  return header_size >= 2 && header_size <= file_size - 8 && prefix[8] == '{';
}

}  // namespace trainer
