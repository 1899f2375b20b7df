// The collectives the engine needs from a process group (R17). The loop calls them unconditionally:
// single_process() does nothing, so "am I distributed?" is asked in this layer, not in the loop.
// The c10d implementation is in process_group.h.
#pragma once
#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace trainer {

// Where this process sits in the job.
struct WorldLayout {
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t local_rank = 0;        ///< rank on this machine: picks cuda:LOCAL_RANK
  int64_t local_world_size = 1;  ///< ranks on this machine: they share its CPU cores
  bool is_main() const { return rank == 0; }
};

enum class Reduction { sum, max };

class Collective {
 public:
  // Waits for a started collective. Throws UserError naming this rank when a peer died or
  // stalled past the timeout.
  using Completion = std::function<void()>;

  virtual ~Collective() = default;
  virtual const WorldLayout& layout() const = 0;
  // False only for single_process(): callers skip packing data that nobody would receive. A
  // process group of one rank (torchrun with one process) is distributed and runs every path.
  virtual bool distributed() const = 0;
  // Starts summing `tensor` over all ranks, in place; read it only after calling the completion.
  virtual Completion start_all_reduce(const at::Tensor& tensor) = 0;
  void all_reduce(const at::Tensor& tensor) { start_all_reduce(tensor)(); }
  // A few host values reduced over all ranks: votes, statistics, metric sums.
  virtual std::vector<double> all_reduce(const std::vector<double>& values, Reduction reduction) = 0;
  // Every rank's `values` (lengths may differ), in rank order: two sum-reductions, the lengths
  // and then the values placed at each rank's offset, so it is exact and needs no extra backend call.
  std::vector<std::vector<double>> all_gather(const std::vector<double>& values);
  // Overwrites `tensor` with rank 0's.
  virtual void broadcast(const at::Tensor& tensor) = 0;
};

// The stand-in for a process that is the whole job.
Collective& single_process();

}  // namespace trainer
