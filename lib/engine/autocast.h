// Scoped mixed precision for forward + loss (R9): never wrap backward in it.
// The outermost guard clears the weight-cast cache when it ends, so one guard per micro-step
// starts each forward with an empty cache: a forward captured in a CUDA graph records its weight
// casts rather than reading copies cast before the capture, which replays would then use with
// stale weights (PyTorch's make_graphed_callables refuses an enabled cache outright). Never keep
// a guard open across micro-steps.
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
