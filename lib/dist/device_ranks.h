// Which GPUs the ranks of a device list (`device=0,1`, `device=-1,-1`) take, as `yolo` picks them
// (select_device and GPUInfo.select_idle_gpu in Ultralytics): each listed index, and for each -1
// the least busy GPU not yet taken that has at least 20 % of its memory free.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

// One GPU as nvidia-smi reports it: its index and how busy and full it is.
struct GpuLoad {
  int64_t index = 0;
  double utilization = 0;  // percent
  double memory_used = 0;  // MiB
  double memory_total = 0;
};

// Parses `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total
// --format=csv,noheader,nounits`; lines it cannot read are left out.
std::vector<GpuLoad> parse_gpu_loads(const std::string& csv);

// The GPUs idlest first (least utilization, then most free memory), those with less than 20 % of
// their memory free left out (Ultralytics' min_memory_fraction=0.2).
std::vector<int64_t> idle_gpus(std::vector<GpuLoad> loads);

// The GPU index of each rank of `listed` (as this process numbers its CUDA devices), given this
// machine's `cuda_devices` and its GPUs idlest first. A UserError naming the key when the machine
// has fewer GPUs than listed, an index is not one of them, or no idle GPU is left for a -1.
std::vector<int64_t> plan_device_ranks(const std::string& device,
                                       const std::vector<int64_t>& listed, int64_t cuda_devices,
                                       const std::vector<int64_t>& idle);

// CUDA_VISIBLE_DEVICES for the ranks: the planned GPUs, read through this process's own
// CUDA_VISIBLE_DEVICES (`inherited`) when it has one, so index 0 stays the first GPU it sees.
std::string visible_devices(const std::vector<int64_t>& planned,
                            const std::optional<std::string>& inherited);

// `device=-1` (idle) alone: the idlest GPU by this process's numbering (nvidia-smi, as for a -1 of a
// list); nullopt where nvidia-smi shows none with 20 % of its memory free, or cannot be run.
std::optional<int64_t> idlest_gpu();

// This machine's plan for a device list: the CUDA_VISIBLE_DEVICES value its ranks get (nvidia-smi
// asked only when the list holds a -1). A UserError naming the key when the GPUs are not there.
std::string device_ranks_visible(const std::string& device);

}  // namespace trainer
