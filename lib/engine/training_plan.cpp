#include "engine/training_plan.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <thread>

#include "config/device_list.h"
#include "dist/device_ranks.h"
#include "dist/epoch_shard.h"
#include "util/error.h"

namespace trainer {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

double scaled_lr(const Settings& settings, int64_t effective_batch) {
  const double ratio = static_cast<double>(effective_batch) / static_cast<double>(settings.schedule.lr_base_batch);
  switch (settings.schedule.lr_scale) {
    case LrScaleRule::none: return settings.optim.lr0;
    case LrScaleRule::linear: return settings.optim.lr0 * ratio;
    case LrScaleRule::sqrt: return settings.optim.lr0 * std::sqrt(ratio);
    case LrScaleRule::factor: return settings.optim.lr0 * std::pow(settings.schedule.lr_scale_factor, std::log2(ratio));
  }
  return settings.optim.lr0;
}

std::string format_double(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// The epochs of an `updates=` run say what is derived and how much of the last one runs.
std::string epochs_text(const TrainingPlan& plan) {
  const std::string epochs = std::to_string(plan.epochs);
  if (!plan.length_in_updates) return epochs;
  const int64_t last = epoch_updates(plan, plan.epochs - 1);
  const std::string derived = epochs + " (derived from updates=" + std::to_string(plan.total_updates);
  if (last == plan.updates_per_epoch) return derived + ")";
  return derived + "; the last epoch runs " + std::to_string(last) + " of its " +
         std::to_string(plan.updates_per_epoch) + " updates)";
}

// timm adds its cool-down epochs after the schedules that end (cosine here, and ours that end
// likewise); step and multistep simply go on.
int64_t cooldown_epochs(const ScheduleSettings& schedule) {
  const bool ends = schedule.scheduler != SchedulerKind::step && schedule.scheduler != SchedulerKind::multistep &&
                    schedule.scheduler != SchedulerKind::constant;
  return ends ? schedule.cooldown_epochs : 0;
}

}  // namespace

c10::Device resolve_device(const std::string& device, const WorldLayout& world) {
  const bool may_fall_back = device == "auto" || device == "idle";
  if (device == "cpu" || (may_fall_back && !torch::cuda::is_available())) return c10::Device(c10::kCPU);
  if (!torch::cuda::is_available()) {
    throw UserError("device=" + device + " was asked for, but this build or machine has no CUDA device");
  }
  if (device == "idle" && world.local_world_size == 1) {
    const std::optional<int64_t> gpu = idlest_gpu();
    if (!gpu) throw UserError("device=-1: nvidia-smi shows no GPU with 20 % of its memory free; name the GPU");
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(*gpu));
  }
  // A device list's ranks see their GPUs alone (the launcher sets CUDA_VISIBLE_DEVICES), in order.
  const bool per_rank = device == "auto" || device == "idle" || device == "cuda" || !device_list(device).empty();
  if (!per_rank && world.local_world_size > 1) {
    throw UserError("device=" + device + " would put all " + std::to_string(world.local_world_size) +
                    " ranks of this machine on one GPU; use device=cuda (rank LOCAL_RANK takes cuda:LOCAL_RANK)");
  }
  const c10::Device resolved = per_rank ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(world.local_rank))
                                        : c10::Device(device);
  if (resolved.index() >= static_cast<int64_t>(torch::cuda::device_count())) {
    throw UserError("device " + resolved.str() + " (device=" + device + "): only " +
                    std::to_string(torch::cuda::device_count()) + " CUDA device(s) present");
  }
  return resolved;
}

int64_t resolve_threads(int64_t threads, const WorldLayout& world) {
  if (threads > 0) return threads;
  const auto cores = static_cast<int64_t>(std::thread::hardware_concurrency());
  return std::max<int64_t>(1, cores / world.local_world_size);
}

TrainingPlan make_plan(const Settings& settings, int64_t train_samples, int64_t epoch_micro_batches,
                       int64_t classes, const WorldLayout& world) {
  if (train_samples <= 0) throw UserError("the training split of '" + settings.run.data + "' is empty");
  TrainingPlan plan;
  plan.micro_batch = settings.schedule.batch;
  plan.world_size = world.world_size;
  // auto aims the effective batch, all ranks together, at nbs.
  plan.accumulate = settings.schedule.accumulate.value_or(std::max<int64_t>(
      std::llround(static_cast<double>(settings.schedule.nbs) / static_cast<double>(settings.schedule.batch * plan.world_size)), 1));
  plan.effective_batch = plan.micro_batch * plan.accumulate * plan.world_size;
  plan.train_samples = train_samples;
  plan.epoch_micro_batches = epoch_micro_batches;
  plan.micro_batches_per_epoch = slots_per_rank(epoch_micro_batches, plan.world_size);
  plan.updates_per_epoch = ceil_div(plan.micro_batches_per_epoch, plan.accumulate);
  plan.length_in_updates = settings.schedule.updates > 0;
  plan.shape_updates =
      plan.length_in_updates ? settings.schedule.updates : plan.updates_per_epoch * settings.schedule.epochs;
  const int64_t epochs = settings.schedule.epochs + cooldown_epochs(settings.schedule);
  plan.total_updates = plan.length_in_updates ? plan.shape_updates : plan.updates_per_epoch * epochs;
  plan.epochs = plan.length_in_updates ? ceil_div(plan.total_updates, plan.updates_per_epoch) : epochs;
  plan.val_interval = settings.output.val_interval;
  plan.warmup_updates = settings.schedule.warmup_updates.value_or(
      std::llround(settings.schedule.warmup_epochs * static_cast<double>(plan.updates_per_epoch)));

  plan.optimizer = settings.optim.kind;
  plan.lr = scaled_lr(settings, plan.effective_batch);
  if (plan.optimizer == OptimizerKind::automatic) {
    // Ultralytics 8.4's rule: AdamW at a class-count-dependent LR for short runs, else MuSGD at
    // 0.01 (8.3 and before chose SGD there).
    if (plan.total_updates > 10000) {
      plan.optimizer = OptimizerKind::musgd;
      plan.lr = 0.01;
    } else {
      plan.optimizer = OptimizerKind::adamw;
      plan.lr = std::round(0.002 * 5.0 / (4.0 + static_cast<double>(classes)) * 1e6) / 1e6;
    }
  }
  plan.weight_decay = settings.optim.weight_decay;
  if (settings.optim.scale_weight_decay)
    plan.weight_decay *= static_cast<double>(plan.effective_batch) / static_cast<double>(settings.schedule.nbs);

  plan.device = resolve_device(settings.run.device, world);
  const bool cuda = plan.device.is_cuda();
  switch (settings.execution.amp) {
    case AmpMode::off: break;
    case AmpMode::automatic:
      // bf16 autocast on CPU is slower than fp32 without native bf16 units, so auto means fp32.
      if (cuda) plan.amp_dtype = at::kHalf;
      break;
    case AmpMode::fp16:
      if (!cuda) {
        throw UserError("amp=fp16 needs a CUDA device (LibTorch's CPU autocast supports bf16 only); "
                        "use amp=bf16 or amp=off on " + plan.device.str());
      }
      plan.amp_dtype = at::kHalf;
      break;
    case AmpMode::bf16: plan.amp_dtype = at::kBFloat16; break;
  }
  plan.loss_scaling = plan.amp_dtype == at::kHalf;
  plan.compile = settings.execution.compile;
  plan.threads = resolve_threads(settings.run.threads, world);
  return plan;
}

TrainingPlan with_epochs(TrainingPlan plan, int64_t epochs) {
  TORCH_INTERNAL_ASSERT(!plan.length_in_updates, "an updates= run has no epochs to recompute");
  plan.epochs = epochs;
  plan.shape_updates = plan.updates_per_epoch * epochs;
  plan.total_updates = plan.shape_updates;
  return plan;
}

std::string schedule_text(const ScheduleSettings& schedule) {
  std::string text = to_string(schedule.scheduler);
  text += schedule.sched_on_updates ? ", stepped every update" : ", stepped at epoch ends";
  if (schedule.warmup_lr) text += ", warmup from " + format_double(*schedule.warmup_lr);
  return text;
}

int64_t epoch_updates(const TrainingPlan& plan, int64_t epoch) {
  return std::clamp<int64_t>(plan.total_updates - epoch * plan.updates_per_epoch, 0, plan.updates_per_epoch);
}

std::string amp_text(const TrainingPlan& plan) {
  if (!plan.amp_dtype) return "off (fp32)";
  return *plan.amp_dtype == at::kHalf ? "fp16 + dynamic loss scaling" : "bf16";
}

std::vector<std::pair<std::string, std::string>> plan_rows(const TrainingPlan& plan) {
  const int64_t last_group = plan.micro_batches_per_epoch % plan.accumulate;
  return {
      {"micro-batch", std::to_string(plan.micro_batch)},
      {"accumulate", std::to_string(plan.accumulate)},
      {"world size", std::to_string(plan.world_size)},
      {"effective batch",
       std::to_string(plan.effective_batch) +
           (plan.world_size > 1 ? " (" + std::to_string(plan.micro_batch) + " x " + std::to_string(plan.accumulate) +
                                      " x " + std::to_string(plan.world_size) + " ranks)"
                                : "")},
      {"training samples", std::to_string(plan.train_samples)},
      {"micro-batches / epoch",
       std::to_string(plan.micro_batches_per_epoch) +
           (plan.world_size > 1 ? " per rank (" + std::to_string(plan.epoch_micro_batches) + " in all)" : "")},
      {"updates / epoch", std::to_string(plan.updates_per_epoch) +
                              (last_group ? " (last group: " + std::to_string(last_group) + " micro-batches)" : "")},
      {"epochs", epochs_text(plan)},
      {"total updates", std::to_string(plan.total_updates) + (plan.length_in_updates ? " (updates=)" : "")},
      {"validation", plan.val_interval > 0 ? "every " + std::to_string(plan.val_interval) + " updates and at the end"
                                           : "at every epoch end"},
      {"optimizer", to_string(plan.optimizer)},
      {"lr (after scaling)", format_double(plan.lr)},
      {"weight decay (scaled)", format_double(plan.weight_decay)},
      {"warmup updates", std::to_string(plan.warmup_updates)},
      {"amp", amp_text(plan)},
      {"compile", to_string(plan.compile)},
      {"device", plan.device.str()},
      {"threads", std::to_string(plan.threads)},
  };
}

ScheduleOptions schedule_options(const ScheduleSettings& schedule, const OptimizerSettings& optimizer,
                                 const TrainingPlan& plan) {
  ScheduleOptions options;
  options.kind = schedule.scheduler;
  options.lr0 = plan.lr;
  options.lrf = schedule.lrf;
  options.total_updates = plan.total_updates;
  options.warmup_updates = plan.warmup_updates;
  options.warmup_bias_lr = schedule.warmup_bias_lr;
  options.momentum = optimizer.momentum;
  options.warmup_momentum = schedule.warmup_momentum;
  options.warmup_lr = schedule.warmup_lr;
  if (schedule.min_lr) options.lrf = plan.lr > 0 ? *schedule.min_lr / plan.lr : 0.0;
  options.shape_updates = plan.shape_updates;
  // timm counts its schedule in epochs unless --sched-on-updates; its lengths are epochs either way.
  const int64_t per_epoch = plan.updates_per_epoch;
  options.step_updates = schedule.sched_on_updates ? 1 : per_epoch;
  const int64_t unit = schedule.sched_on_updates ? per_epoch : 1;
  options.decay_steps = schedule.decay_epochs * static_cast<double>(unit);
  for (const int64_t epoch : schedule.decay_milestones) options.milestones.push_back(epoch * unit);
  options.decay_rate = schedule.decay_rate;
  return options;
}

}  // namespace trainer
