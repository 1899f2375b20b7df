// Times FusedOptimizer steps (and libtorch's own C++ optimizers, for scale) on a model's
// parameter shapes. scripts/bench-optimizer writes ResNet18's shapes and compares with Python.
// It also times a whole update from loss-scaled grads (unscale, finite check, clip, step, zero)
// as separate passes and as StepCore runs it (a norm pass, then the optimizer's pass).
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "optim/fused_optimizer.h"
#include "optim/grad_clip.h"
#include "optim/loss_scaler.h"
#include "util/error.h"

namespace {

using trainer::UserError;

constexpr trainer::OptimizerKind kKinds[] = {trainer::OptimizerKind::adamw, trainer::OptimizerKind::sgd,
                                             trainer::OptimizerKind::adam, trainer::OptimizerKind::adadelta};

std::vector<std::vector<int64_t>> read_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read shapes file " + path);
  std::vector<std::vector<int64_t>> shapes;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::vector<int64_t> shape;
    for (int64_t size; fields >> size;) shape.push_back(size);
    if (!shape.empty()) shapes.push_back(shape);
  }
  if (shapes.empty()) throw UserError("no shapes in " + path + " (one tensor per line: sizes)");
  return shapes;
}

// Median and best of the timed steps: the machine is shared, so one step in a busy moment says
// little; the best shows the code's own speed. `prepare` runs untimed before each step.
std::string seconds_per_step(const std::function<void()>& step, int warmup, int steps,
                             const std::function<void()>& prepare = [] {}) {
  for (int i = 0; i < warmup; ++i) {
    prepare();
    step();
  }
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    prepare();
    const auto start = std::chrono::steady_clock::now();
    step();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  std::ostringstream out;
  out << times[times.size() / 2] << " " << times.front();
  return out.str();
}

// Seeded, so that every run times the same numbers.
std::vector<torch::Tensor> random_params(const std::string& shapes_path) {
  torch::manual_seed(0);
  std::vector<torch::Tensor> params;
  int64_t numel = 0;
  for (const auto& shape : read_shapes(shapes_path)) {
    params.push_back(torch::randn(shape).requires_grad_());
    params.back().mutable_grad() = torch::randn(shape);
    numel += params.back().numel();
  }
  std::cout << "params " << params.size() << " tensors, " << numel << " elements\n";
  return params;
}

void time_optimizer_steps(const std::vector<torch::Tensor>& params, int warmup, int steps) {
  for (trainer::OptimizerKind kind : kKinds) {
    trainer::FusedOptimizerOptions options;
    options.kind = kind;
    trainer::FusedOptimizer optimizer({{"all", params, 1e-3, 5e-4}}, options);
    std::cout << "ours_" << trainer::to_string(kind) << " "
              << seconds_per_step([&] { optimizer.step(); }, warmup, steps) << "\n";
  }
}

// Whole updates from grads as backward leaves them under fp16 loss scaling (x65536): each
// timed update starts from the same grads, refilled untimed.
void time_updates(const std::vector<torch::Tensor>& params, double clip, int warmup, int steps) {
  std::vector<torch::Tensor> grads;
  std::vector<torch::Tensor> scaled_grads;
  for (const auto& p : params) {
    grads.push_back(p.grad());
    scaled_grads.push_back(torch::randn_like(p) * 65536.0);
  }
  const auto refill = [&] {
    for (size_t i = 0; i < grads.size(); ++i) grads[i].copy_(scaled_grads[i]);
  };
  for (trainer::OptimizerKind kind : kKinds) {
    trainer::FusedOptimizerOptions options;
    options.kind = kind;
    trainer::FusedOptimizer optimizer({{"all", params, 1e-3, 5e-4}}, options);
    trainer::LossScaler scaler(true, torch::kCPU);
    const std::string name = std::string("ours_") + trainer::to_string(kind) + "_update";
    // Before: unscale_ (divide + sum for the finite check), clip (norm + multiply), step, zero.
    std::cout << name << "_separate "
              << seconds_per_step(
                     [&] {
                       const torch::Tensor found_inf = scaler.unscale_(grads);
                       trainer::clip_grad_norm_(grads, clip);
                       optimizer.step(found_inf);
                       scaler.update(found_inf);
                       optimizer.zero_grad();
                     },
                     warmup, steps, refill)
              << "\n";
    // StepCore::update: the norm, then one optimizer pass that scales and zeroes.
    std::cout << name << "_fused "
              << seconds_per_step(
                     [&] {
                       const trainer::GradFactors factors =
                           trainer::grad_factors(grads, scaler.inv_scale(), clip);
                       optimizer.step(factors.found_inf, factors.multiplier, true);
                       scaler.update(factors.found_inf);
                     },
                     warmup, steps, refill)
              << "\n";
  }
}

void time_libtorch_optimizers(const std::vector<torch::Tensor>& params, int warmup, int steps) {
  torch::optim::AdamW adamw(params, torch::optim::AdamWOptions(1e-3).weight_decay(5e-4));
  std::cout << "libtorch_adamw " << seconds_per_step([&] { adamw.step(); }, warmup, steps)
            << "\n";
  torch::optim::SGD sgd(
      params, torch::optim::SGDOptions(1e-3).momentum(0.937).nesterov(true).weight_decay(5e-4));
  std::cout << "libtorch_sgd " << seconds_per_step([&] { sgd.step(); }, warmup, steps) << "\n";
  // LibTorch's C++ API has Adam but no Adadelta.
  torch::optim::Adam adam(params, torch::optim::AdamOptions(1e-3).weight_decay(5e-4));
  std::cout << "libtorch_adam " << seconds_per_step([&] { adam.step(); }, warmup, steps) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Optimizer step benchmark"};
  std::string shapes_path;
  int threads = 2;
  int steps = 10;  // >= 1
  int warmup = 2;
  double clip = 10;
  app.add_option("--shapes", shapes_path, "text file, one parameter per line: its sizes")
      ->required();
  app.add_option("--threads", threads, "intra-op threads");
  app.add_option("--steps", steps, "timed steps per optimizer")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first");
  app.add_option("--clip", clip, "grad_clip (max total norm) of the timed updates; 0: none");
  CLI11_PARSE(app, argc, argv);

  try {
    std::cout << "default_threads " << at::get_num_threads() << "\n";
    at::set_num_threads(threads);
    std::cout << "threads " << at::get_num_threads() << "\n";
    const std::vector<torch::Tensor> params = random_params(shapes_path);
    time_optimizer_steps(params, warmup, steps);
    time_updates(params, clip, warmup, steps);
    time_libtorch_optimizers(params, warmup, steps);
  } catch (const UserError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
