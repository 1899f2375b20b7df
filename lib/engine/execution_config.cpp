#include "engine/execution_config.h"

#include <ATen/Context.h>

namespace trainer {

bool ExecutionConfig::operator==(const ExecutionConfig& other) const {
  return channels_last == other.channels_last && graphs == other.graphs &&
         cudnn_benchmark == other.cudnn_benchmark && tf32 == other.tf32;
}

std::string ExecutionConfig::describe() const {
  std::string text;
  const auto add = [&](bool on, const char* part) {
    if (!on) return;
    if (!text.empty()) text += " + ";
    text += part;
  };
  add(cudnn_benchmark, "cuDNN autotuning");
  add(tf32, "TF32");
  add(channels_last, "channels-last");
  add(graphs, "CUDA graphs");
  return text.empty() ? "eager" : text;
}

ResolvedExecution resolve_execution(CompileMode mode, const c10::Device& device, bool mixed_precision,
                                    bool convolutional) {
  ResolvedExecution resolved;
  if (mode == CompileMode::none) return resolved;
  const bool cuda = device.is_cuda();
  ExecutionConfig& config = resolved.config;
  config.cudnn_benchmark = cuda;
  config.tf32 = cuda;
  config.channels_last = cuda && mixed_precision && convolutional;
  const bool wants_graphs = mode == CompileMode::reduce_overhead || mode == CompileMode::max_autotune;
  config.graphs = cuda && mode == CompileMode::reduce_overhead;
  if (wants_graphs && !cuda) {
    resolved.unavailable_changes_run = mode == CompileMode::reduce_overhead;
    resolved.unavailable = std::string("CUDA-graph capture needs a CUDA device; on ") + c10::DeviceTypeName(device.type()) +
                           " compile=" + to_string(mode) +
                           (resolved.unavailable_changes_run ? " runs its steps eagerly" : " measures memory layouts only");
  }
  if (mode == CompileMode::max_autotune) {
    for (const bool channels_last : {false, true}) {
      if (channels_last && !convolutional) continue;
      for (const bool graphs : {false, true}) {
        if (graphs && !cuda) continue;
        ExecutionConfig candidate = config;
        candidate.channels_last = channels_last;
        candidate.graphs = graphs;
        resolved.candidates.push_back(candidate);
      }
    }
  }
  return resolved;
}

bool is_convolutional(torch::nn::Module& model) {
  for (const auto& parameter : model.parameters()) {
    if (parameter.dim() == 4) return true;
  }
  return false;
}

void enable_global_switches(const ExecutionConfig& config) {
  if (config.cudnn_benchmark) at::globalContext().setBenchmarkCuDNN(true);
  if (config.tf32) {
    at::globalContext().setAllowTF32CuBLAS(true);
    at::globalContext().setAllowTF32CuDNN(true);
  }
}

void apply_memory_format(torch::nn::Module& model, bool channels_last) {
  const auto format = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  torch::NoGradGuard no_grad;
  const auto convert = [&](const torch::Tensor& tensor) {
    if (tensor.defined() && tensor.dim() == 4 && !tensor.is_contiguous(format)) {
      tensor.set_data(tensor.contiguous(format));
    }
  };
  for (const auto& parameter : model.parameters()) {
    convert(parameter);
    if (parameter.grad().defined()) convert(parameter.grad());
  }
  for (const auto& buffer : model.buffers()) convert(buffer);
}

}  // namespace trainer
