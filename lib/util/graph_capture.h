// Whether CUDA graph capture is under way, for code below the graph executor (the fused
// optimizer's kernels) that must then avoid reading numbers back to the host.
#pragma once

namespace trainer {

// Whether the current CUDA stream is capturing a graph: work that reads host numbers must then
// read them from the device instead. Ask only with CUDA tensors at hand (it may create the CUDA
// context); false in builds without CUDA.
bool capturing_cuda_graph();

}  // namespace trainer
