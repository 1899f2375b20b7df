// What a compile mode turns on (R1). LibTorch has no torch.compile, so the modes are built from
// what it does offer: cuDNN autotuning, TF32, channels-last memory format, CUDA-graph capture and
// replay; the fused optimizer runs in every mode. docs/training.md gives each mode's measured effect.
#pragma once
#include <torch/nn/module.h>

#include <string>
#include <vector>

#include "config/settings.h"

namespace trainer {

struct ExecutionConfig {
  bool channels_last = false;    ///< 4-D weights and image inputs in NHWC
  bool graphs = false;           ///< capture the step as CUDA graphs and replay them
  bool cudnn_benchmark = false;  ///< let cuDNN time its algorithms per shape
  bool tf32 = false;             ///< TF32 matmuls and convolutions where the GPU has them

  bool operator==(const ExecutionConfig& other) const;
  std::string describe() const;  ///< "eager", or the parts joined by " + "
};

struct ResolvedExecution {
  ExecutionConfig config;             ///< what the run uses (max-autotune: the base its candidates share)
  std::vector<ExecutionConfig> candidates;  ///< max-autotune: what it measures; else empty
  std::string unavailable;            ///< what the mode asks for that this device lacks, said once; "" = nothing
  /// Whether the lack changes what the run does (reduce-overhead runs eagerly: a warning) or only
  /// narrows what max-autotune measures (worth an info line).
  bool unavailable_changes_run = false;
};

// The mode on `device`: none = eager; default = cuDNN autotuning, TF32 and, for convolutional
// models under mixed precision, channels-last (where tensor cores want NHWC); reduce-overhead =
// default + CUDA graphs; max-autotune = the candidates (channels-last or not, graphs or not) over
// default's switches. CUDA-only parts are off on other devices and named in `unavailable`.
ResolvedExecution resolve_execution(CompileMode mode, const c10::Device& device, bool mixed_precision,
                                    bool convolutional);

// Whether any parameter is a 4-D convolution weight.
bool is_convolutional(torch::nn::Module& model);
// Turns on the process-wide switches the config asks for (cuDNN benchmark, TF32); those it leaves
// off keep what configure_runtime chose (deterministic=false alone turns cuDNN benchmark on).
void enable_global_switches(const ExecutionConfig& config);
// Moves every 4-D parameter and buffer into the NHWC (or back into the contiguous) layout in place,
// keeping the tensors themselves, so do it before an optimizer allocates buffers after them.
void apply_memory_format(torch::nn::Module& model, bool channels_last);

}  // namespace trainer
