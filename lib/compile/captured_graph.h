// One captured piece of work, replayed on demand: a CUDA graph in GPU builds. The graph executor
// depends only on this interface, so its bookkeeping (static buffers, warm-up, one capture per
// shape, replay) is built and tested on CPU with an implementation that re-runs the captured
// function, and the CUDA one stays a small file of its own.
#pragma once
#include <functional>
#include <memory>

namespace trainer {

class CapturedGraph {
 public:
  virtual ~CapturedGraph() = default;
  // Runs `work` for real once, before capture, where the capture will happen (a side stream on
  // CUDA): it creates library handles, autotuning choices and lazily allocated state.
  virtual void warm_up(const std::function<void()>& work) = 0;
  // Records `work` without running it. It must only launch device work on tensors that outlive
  // the graph: host code in it runs now and never again.
  virtual void capture(const std::function<void()>& work) = 0;
  // Runs the recorded work again, on the tensors it was recorded with.
  virtual void replay() = 0;
};

using GraphFactory = std::function<std::unique_ptr<CapturedGraph>()>;

}  // namespace trainer
