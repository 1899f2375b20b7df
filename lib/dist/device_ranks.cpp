#include "dist/device_ranks.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "config/device_list.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

constexpr double kMinFreeMemory = 0.2;  // Ultralytics' select_idle_gpu(min_memory_fraction=0.2)

// The items of CUDA_VISIBLE_DEVICES: GPU indices of the machine (or UUIDs).
std::vector<std::string> items_of(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) items.push_back(trim(item));
  return items;
}

std::string nvidia_smi_output() {
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen("nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total "
            "--format=csv,noheader,nounits "
            "2>/dev/null",
            "r"),
      pclose);
  std::string text;
  if (!pipe) return text;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe.get())) text += buffer;
  return text;
}

// The idle GPUs by this process's numbering: nvidia-smi's indices are the machine's.
std::vector<int64_t> idle_gpus_here(const std::optional<std::string>& inherited) {
  const std::vector<int64_t> idle = idle_gpus(parse_gpu_loads(nvidia_smi_output()));
  if (!inherited) return idle;
  const std::vector<std::string> visible = items_of(*inherited);
  std::vector<int64_t> here;
  for (int64_t gpu : idle) {
    const auto at = std::find(visible.begin(), visible.end(), std::to_string(gpu));
    if (at != visible.end()) here.push_back(at - visible.begin());
  }
  return here;
}

std::string count_text(int64_t count) {
  return count == 0 ? "no CUDA device" : std::to_string(count) + " CUDA device(s)";
}

}  // namespace

std::vector<GpuLoad> parse_gpu_loads(const std::string& csv) {
  std::vector<GpuLoad> loads;
  std::stringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    GpuLoad load;
    long long index = 0;
    if (std::sscanf(line.c_str(), " %lld , %lf , %lf , %lf", &index, &load.utilization,
                    &load.memory_used, &load.memory_total) != 4) {
      continue;
    }
    load.index = index;
    loads.push_back(load);
  }
  return loads;
}

std::vector<int64_t> idle_gpus(std::vector<GpuLoad> loads) {
  const auto free_memory = [](const GpuLoad& gpu) { return gpu.memory_total - gpu.memory_used; };
  loads.erase(std::remove_if(loads.begin(), loads.end(),
                             [&](const GpuLoad& gpu) {
                               return free_memory(gpu) < kMinFreeMemory * gpu.memory_total;
                             }),
              loads.end());
  std::stable_sort(loads.begin(), loads.end(), [&](const GpuLoad& a, const GpuLoad& b) {
    return a.utilization != b.utilization ? a.utilization < b.utilization
                                          : free_memory(a) > free_memory(b);
  });
  std::vector<int64_t> indices;
  for (const GpuLoad& gpu : loads) indices.push_back(gpu.index);
  return indices;
}

std::vector<int64_t> plan_device_ranks(const std::string& device,
                                       const std::vector<int64_t>& listed, int64_t cuda_devices,
                                       const std::vector<int64_t>& idle) {
  const std::string asked = "device=" + device + " trains " + std::to_string(listed.size()) +
                            " data-parallel ranks, one per listed GPU, but this machine has " +
                            count_text(cuda_devices);
  if (cuda_devices < static_cast<int64_t>(listed.size())) {
    throw UserError(asked + "; train on the CPU with device=cpu nproc=" +
                    std::to_string(listed.size()) + ", or list the GPUs it has");
  }
  std::vector<int64_t> planned;
  for (int64_t index : listed) {
    if (index >= cuda_devices)
      throw UserError(asked + ": there is no GPU " + std::to_string(index));
    if (index >= 0 && std::find(planned.begin(), planned.end(), index) != planned.end()) {
      throw UserError("device=" + device + " lists GPU " + std::to_string(index) + " twice");
    }
    if (index >= 0) planned.push_back(index);
  }
  for (int64_t index : listed) {
    if (index >= 0) continue;
    const auto free = std::find_if(idle.begin(), idle.end(), [&](int64_t gpu) {
      return gpu < cuda_devices && std::find(planned.begin(), planned.end(), gpu) == planned.end();
    });
    if (free == idle.end()) {
      throw UserError("device=" + device +
                      ": no idle GPU left for a -1 (nvidia-smi shows none with 20 % of its "
                      "memory free besides those taken); list the GPUs to use");
    }
    planned.push_back(*free);
  }
  return planned;
}

std::string visible_devices(const std::vector<int64_t>& planned,
                            const std::optional<std::string>& inherited) {
  const std::vector<std::string> visible =
      inherited ? items_of(*inherited) : std::vector<std::string>{};
  std::vector<std::string> texts;
  for (int64_t index : planned) {
    texts.push_back(index < static_cast<int64_t>(visible.size()) ? visible[index]
                                                                 : std::to_string(index));
  }
  return join(texts, ",");
}

std::optional<int64_t> idlest_gpu() {
  const char* variable = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::vector<int64_t> idle = idle_gpus_here(variable ? std::optional<std::string>(variable) : std::nullopt);
  return idle.empty() ? std::nullopt : std::optional<int64_t>(idle.front());
}

std::string device_ranks_visible(const std::string& device) {
  const char* variable = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> inherited =
      variable ? std::optional<std::string>(variable) : std::nullopt;
  const std::vector<int64_t> listed = device_list(device);
  const bool picks_idle = std::find(listed.begin(), listed.end(), -1) != listed.end();
  const std::vector<int64_t> idle = picks_idle ? idle_gpus_here(inherited) : std::vector<int64_t>{};
  const auto cuda_devices = static_cast<int64_t>(torch::cuda::device_count());
  return visible_devices(plan_device_ranks(device, listed, cuda_devices, idle), inherited);
}

}  // namespace trainer
