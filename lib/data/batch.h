// One collated mini-batch, as the training loop consumes it.
#pragma once
#include <torch/torch.h>

#include <cstdint>

namespace trainer {

struct Batch {
  torch::Tensor input;           ///< uint8 [B, C, H, W] pixels (the task normalises them where the step
                                 ///< runs), or float32 already normalised
  torch::Tensor target;          ///< int64 [B] class indices, float32 [B, classes] class probabilities
                                 ///< (mixed classification batches), int64 [B, L] padded label
                                 ///< sequences, or float32 [B, R, 5] detection rows (class, cx, cy, w, h)
  int64_t size = 0;              ///< B; kept apart so a short last batch needs no tensor inspection
  torch::Tensor target_lengths;  ///< int64 [B] used lengths of a sequence target; undefined otherwise
  int64_t dropped_boxes = 0;     ///< detection: objects left out because an image had more than target's rows

  // Moves the tensors into page-locked (pinned) host memory, from which a CUDA copy runs
  // asynchronously, overlapping the step before it. CUDA builds only.
  void pin() {
    input = input.pin_memory();
    target = target.pin_memory();
    if (target_lengths.defined()) target_lengths = target_lengths.pin_memory();
  }

  // Copies the tensors to `device` (asynchronously from pinned memory).
  void to(const torch::Device& device) {
    input = input.to(device, true);
    target = target.to(device, true);
    if (target_lengths.defined()) target_lengths = target_lengths.to(device, true);
  }
};

}  // namespace trainer
