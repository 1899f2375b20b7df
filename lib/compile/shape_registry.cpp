#include "compile/shape_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace trainer {

std::string shape_text(c10::IntArrayRef shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

ShapeRegistry::ShapeRegistry(int64_t capture_limit, std::vector<int64_t> dynamic_dims, int64_t full_batch)
    : capture_limit_(capture_limit), dynamic_dims_(std::move(dynamic_dims)), full_batch_(full_batch) {}

std::string ShapeRegistry::reason_for(c10::IntArrayRef input) const {
  std::string reason = "new input shape " + shape_text(input);
  if (first_input_.empty()) return reason + " (first batch)";
  if (first_input_.size() != input.size()) return reason + " (different rank)";
  std::string changes;
  for (size_t dim = 0; dim < input.size(); ++dim) {
    if (first_input_[dim] == input[dim]) continue;
    const bool dynamic = std::find(dynamic_dims_.begin(), dynamic_dims_.end(), static_cast<int64_t>(dim)) !=
                         dynamic_dims_.end();
    changes += (changes.empty() ? "" : ", ") + std::string("dim ") + std::to_string(dim) + " " +
               std::to_string(first_input_[dim]) + " -> " + std::to_string(input[dim]) +
               (dynamic ? " (dynamic)" : dim == 0 ? " (short batch)" : " (not declared dynamic)");
  }
  return reason + (changes.empty() ? " (targets differ)" : " (" + changes + ")");
}

ShapeRegistry::Lookup ShapeRegistry::lookup(c10::IntArrayRef input, const std::vector<int64_t>& key) {
  const auto found = seen_.find(key);
  if (found != seen_.end()) return found->second;
  Lookup lookup;
  const bool short_batch = full_batch_ > 0 && !input.empty() && input[0] < full_batch_;
  if (short_batch) {
    if (short_shapes_++ == 0) {
      spdlog::info("short batches (fewer than {} samples: the tail of an epoch or a bucket) run eagerly, without "
                   "graphs; first: {}", full_batch_, shape_text(input));
    }
  } else if (captures_ < capture_limit_) {
    lookup.action = Action::capture;
    lookup.slot = static_cast<size_t>(captures_++);
    lookup.reason = reason_for(input);
    spdlog::info("graph capture {} of at most {}: {}", captures_, capture_limit_, lookup.reason);
  } else if (!warned_) {
    warned_ = true;
    spdlog::warn("compile_cache_limit ({}) reached: {} and any later new shape run eagerly; keep shapes few "
                 "(buckets, fixed image size) or raise compile_cache_limit",
                 capture_limit_, reason_for(input));
  }
  if (first_input_.empty() && !short_batch) first_input_.assign(input.begin(), input.end());
  // Met again, a captured shape replays its graph.
  seen_.emplace(key, Lookup{lookup.action == Action::capture ? Action::replay : Action::eager, lookup.slot, {}});
  return lookup;
}

}  // namespace trainer
