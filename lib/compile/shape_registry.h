// Which input shapes a graph-capturing run has met and which of them own a graph (R2): the first
// sighting of a shape captures it (logged with its reason and counted) until `capture_limit`
// graphs exist; later new shapes run eagerly, with one warning for the run. Short batches (the
// tail of an epoch or of a width bucket) always run eagerly: a graph each would cost a capture and
// a slot to be replayed about once an epoch, and their sizes change from epoch to epoch.
#pragma once
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainer {

class ShapeRegistry {
 public:
  enum class Action { replay, capture, eager };
  struct Lookup {
    Action action = Action::eager;
    size_t slot = 0;     ///< replay/capture: index of the shape's graph in the caller's list (capture order)
    std::string reason;  ///< capture: why a graph is captured now
  };

  // `dynamic_dims`: the input dimensions the task declares variable (named in the reasons).
  // `full_batch`: the micro-batch size; an input with fewer samples is short. 0: none is.
  ShapeRegistry(int64_t capture_limit, std::vector<int64_t> dynamic_dims, int64_t full_batch = 0);

  // `input` decides what the reason says; `key` is every shape the step depends on (input and
  // targets), so two batches share a graph only when all of them match.
  Lookup lookup(c10::IntArrayRef input, const std::vector<int64_t>& key);

  int64_t shapes() const { return static_cast<int64_t>(seen_.size()); }
  int64_t captures() const { return captures_; }
  int64_t short_shapes() const { return short_shapes_; }
  int64_t eager_shapes() const { return shapes() - captures_ - short_shapes_; }  ///< past the limit

 private:
  std::string reason_for(c10::IntArrayRef input) const;

  int64_t capture_limit_;
  std::vector<int64_t> dynamic_dims_;
  int64_t full_batch_;
  std::vector<int64_t> first_input_;
  std::map<std::vector<int64_t>, Lookup> seen_;
  int64_t captures_ = 0;
  int64_t short_shapes_ = 0;
  bool warned_ = false;
};

// "[8, 1, 64, 288]"
std::string shape_text(c10::IntArrayRef shape);

}  // namespace trainer
