// CapturedGraph as an at::cuda::CUDAGraph: warm-up and capture on a side stream, every graph of a
// run in one memory pool (replays never overlap, and nothing allocated inside one graph is read
// by another). Only builds with TRAINER_CUDA have it.
#pragma once
#include <c10/core/Device.h>

#include "engine/captured_graph.h"

namespace trainer {

// Throws when this build has no CUDA support.
GraphFactory cuda_graph_factory(const c10::Device& device);

}  // namespace trainer
