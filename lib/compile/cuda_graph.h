// CapturedGraph as an at::cuda::CUDAGraph: warm-up and capture on one side stream, every graph of
// a run in one memory pool. Sharing the pool is safe because replays never overlap, and the only
// memory a graph reads from another (a forward's output and saved activations, read by its
// backward) is written by that forward in the same micro-step, with no other replay in between.
// Only builds with TRAINER_CUDA have it.
#pragma once
#include <c10/core/Device.h>

#include "compile/captured_graph.h"

namespace trainer {

// Throws when this build has no CUDA support.
GraphFactory cuda_graph_factory(const c10::Device& device);

}  // namespace trainer
