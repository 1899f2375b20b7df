#include "compile/cuda_graph.h"

#include <stdexcept>

#ifdef TRAINER_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace trainer {

#ifdef TRAINER_CUDA
namespace {

// The graphs of one executor share one memory pool.
using PoolId = decltype(at::cuda::graph_pool_handle());

class CudaGraph : public CapturedGraph {
 public:
  CudaGraph(c10::DeviceIndex device, PoolId pool, c10::cuda::CUDAStream side)
      : device_(device), pool_(pool), side_(side) {}

  void warm_up(const std::function<void()>& work) override { on_side_stream(work); }

  void capture(const std::function<void()>& work) override {
    on_side_stream([&] {
      graph_.capture_begin(pool_);
      work();
      graph_.capture_end();
    });
  }

  void replay() override { graph_.replay(); }

 private:
  // PyTorch's recipe for whole-network capture: the side stream starts after everything queued so
  // far and the caller's stream continues after it. Syncing the device is affordable here: it
  // happens once per captured shape.
  void on_side_stream(const std::function<void()>& work) {
    const c10::cuda::CUDAGuard device_guard(device_);
    c10::cuda::device_synchronize();
    {
      const c10::cuda::CUDAStreamGuard stream_guard(side_);
      work();
    }
    c10::cuda::device_synchronize();
  }

  c10::DeviceIndex device_;
  PoolId pool_;
  // Shared by all graphs of a run: a backward graph's autograd nodes run on the stream their
  // forward graph was captured on, which must be the stream capturing them.
  c10::cuda::CUDAStream side_;
  at::cuda::CUDAGraph graph_;
};

}  // namespace

GraphFactory cuda_graph_factory(const c10::Device& device) {
  const c10::DeviceIndex index = device.has_index() ? device.index() : c10::cuda::current_device();
  const PoolId pool = at::cuda::graph_pool_handle();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, index);
  return [index, pool, side] { return std::make_unique<CudaGraph>(index, pool, side); };
}

#else

GraphFactory cuda_graph_factory(const c10::Device&) {
  throw std::logic_error("CUDA graphs need a build with TRAINER_CUDA");
}

#endif

}  // namespace trainer
