// Two error tiers (as in faiss): bugs are TORCH_INTERNAL_ASSERT; user mistakes (bad recipe,
// missing file, corrupt data) throw UserError with the context a user needs to fix them.
// main() catches UserError once, prints its message on one line and exits non-zero.
#pragma once
#include <stdexcept>
#include <string>

namespace trainer {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace trainer
