#include "engine/autocast.h"

#include "util/torch_compat.h"

namespace trainer {

AutocastGuard::AutocastGuard(c10::DeviceType device, std::optional<at::ScalarType> dtype)
    : device_(device) {
  if (!dtype) return;
  active_ = true;
  previous_enabled_ = compat::autocast_enabled(device);
  previous_dtype_ = compat::autocast_dtype(device);
  compat::set_autocast(device, true, *dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  // The cast cache holds low-precision copies of the weights; drop it when the outermost
  // region ends so the next forward sees updated weights.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::set_autocast(device_, previous_enabled_, previous_dtype_);
}

}  // namespace trainer
