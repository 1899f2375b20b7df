#include "util/graph_capture.h"

#ifdef TRAINER_CUDA
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace trainer {

#ifdef TRAINER_CUDA
bool capturing_cuda_graph() {
  return c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None;
}
#else
bool capturing_cuda_graph() { return false; }
#endif

}  // namespace trainer
