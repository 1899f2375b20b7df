// FNV-1a, a 64-bit hash of bytes fed piece by piece: the keys of the project's caches (scan and
// pixel caches, autotune decisions), which must stay the same from run to run and build to build,
// as std::hash need not. Catches truncation and bit rot, not tampering.
#pragma once
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace trainer {

class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (const char byte : bytes) hash_ = (hash_ ^ uint8_t(byte)) * 0x100000001b3ull;
  }
  template <typename T>
  void add_value(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    add(std::string_view(reinterpret_cast<const char*>(&value), sizeof(value)));
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

// The hash of `bytes` at once.
inline uint64_t fnv1a(std::string_view bytes) {
  Fnv1a digest;
  digest.add(bytes);
  return digest.value();
}

}  // namespace trainer
