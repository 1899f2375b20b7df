// Scoped mixed precision for forward + loss (R9): never wrap backward in it.
#pragma once
#include <optional>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace trainer {

class AutocastGuard {
 public:
  // dtype nullopt: autocast stays as it was (fp32 training).
  AutocastGuard(c10::DeviceType device, std::optional<at::ScalarType> dtype);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool active_ = false;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace trainer
