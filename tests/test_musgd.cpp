// MuSGD against Ultralytics 8.4's optim/muon.py, written independently in Python
// (scripts/python/musgd_fixture.py): three steps of Muon + SGD on a convolution's filters and a
// linear weight, plain SGD on a bias and a norm scale; a resumed run continues to the bit; and
// the parameter groups 8.4 builds for it.
#include <catch2/catch.hpp>

#include "io/tensor_archive.h"
#include "models/yolo.h"
#include "optim/muon.h"
#include "optim/param_groups.h"
#include "test_helpers.h"

using namespace trainer;

namespace {

struct Reference {
  std::vector<torch::Tensor> initial;
  std::vector<std::vector<torch::Tensor>> grads, after;
};

const Reference& python_reference() {
  static const Reference reference = [] {
    const testing::TempDir dir("musgd");
    testing::run_python("musgd_fixture.py", testing::quoted(dir.file("fixture.pt")));
    const c10::impl::GenericDict dict = read_archive(dir.file("fixture.pt")).toGenericDict();
    Reference read;
    read.initial = testing::tensor_list(dict.at("initial"));
    for (const c10::IValue& step : dict.at("grads").toListRef())
      read.grads.push_back(testing::tensor_list(step));
    for (const c10::IValue& step : dict.at("after").toListRef())
      read.after.push_back(testing::tensor_list(step));
    return read;
  }();
  return reference;
}

// The fixture's parameters in its groups, as make_param_groups would make them.
FusedOptimizer musgd(std::vector<torch::Tensor>& params) {
  FusedOptimizerOptions options;
  options.kind = OptimizerKind::musgd;
  options.momentum = 0.9;
  std::vector<ParamGroup> groups{
      {"muon", {params[0], params[1]}, 0.01, 5e-4, ParamRole::weights, 1, true},
      {"bias", {params[2]}, 0.01, 0.0, ParamRole::bias},
      {"norm", {params[3]}, 0.01, 0.0, ParamRole::norm}};
  return FusedOptimizer(std::move(groups), options);
}

void take_step(FusedOptimizer& optimizer, std::vector<torch::Tensor>& params,
               const std::vector<torch::Tensor>& grads) {
  for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = grads[i].clone();
  optimizer.step();
}

std::vector<torch::Tensor> fresh(const std::vector<torch::Tensor>& initial) {
  std::vector<torch::Tensor> params;
  for (const torch::Tensor& tensor : initial) params.push_back(tensor.clone().requires_grad_());
  return params;
}

}  // namespace

TEST_CASE("MuSGD's steps equal Ultralytics' MuSGD", "[optim][musgd]") {
  const Reference& reference = python_reference();
  std::vector<torch::Tensor> params = fresh(reference.initial);
  FusedOptimizer optimizer = musgd(params);
  for (size_t step = 0; step < reference.grads.size(); ++step) {
    take_step(optimizer, params, reference.grads[step]);
    for (size_t i = 0; i < params.size(); ++i) {
      INFO("step " << step << ", parameter " << i);
      const double moved =
          (reference.after[step][i] - reference.initial[i]).abs().max().item<double>();
      CHECK(moved > 1e-3);  // the step really moved it
      CHECK((params[i] - reference.after[step][i]).abs().max().item<double>() < 1e-6);
    }
  }
}

TEST_CASE("a MuSGD run resumed from its state continues to the bit", "[optim][musgd]") {
  const Reference& reference = python_reference();
  std::vector<torch::Tensor> straight = fresh(reference.initial);
  FusedOptimizer uninterrupted = musgd(straight);
  std::vector<torch::Tensor> resumed = fresh(reference.initial);
  FusedOptimizer first = musgd(resumed);
  take_step(uninterrupted, straight, reference.grads[0]);
  take_step(first, resumed, reference.grads[0]);
  std::map<std::string, torch::Tensor> saved;
  for (const auto& [name, tensor] : first.state()) saved[name] = tensor.clone();
  CHECK(saved.count("group.0.param.0.momentum_buffer_SGD") == 1);
  std::vector<torch::Tensor> continued;
  for (const torch::Tensor& tensor : resumed)
    continued.push_back(tensor.detach().clone().requires_grad_());
  FusedOptimizer second = musgd(continued);
  second.load_state(saved);
  for (size_t step = 1; step < reference.grads.size(); ++step) {
    take_step(uninterrupted, straight, reference.grads[step]);
    take_step(second, continued, reference.grads[step]);
  }
  for (size_t i = 0; i < straight.size(); ++i) CHECK(torch::equal(straight[i], continued[i]));
}

TEST_CASE("MuSGD's groups: matrices with Muon, YOLO26's class branches at three times the LR",
          "[optim][musgd]") {
  Yolo model = make_yolo("yolo26n", 3, 2);
  const std::vector<ParamGroup> groups = make_param_groups(*model, 0.01, 5e-4, true);
  size_t muon_params = 0, faster = 0;
  for (const ParamGroup& group : groups) {
    INFO(group.name);
    for (const torch::Tensor& param : group.params) CHECK((group.muon == (param.dim() >= 2)));
    if (group.muon) muon_params += group.params.size();
    if (group.lr_scale == 3) {
      faster += group.params.size();
      CHECK(group.lr == Approx(0.03));
    }
  }
  CHECK(muon_params > 100);
  CHECK(faster > 0);
  CHECK(make_param_groups(*model, 0.01, 5e-4).size() == 3);  // other optimizers: 8.3's three groups
  // Newton-Schulz makes the singular values of any matrix about 1.
  const torch::Tensor orthogonal =
      newton_schulz_orthogonalised(torch::randn({6, 10})).to(torch::kFloat);
  const torch::Tensor singular = std::get<1>(torch::svd(orthogonal));
  CHECK(singular.min().item<double>() > 0.4);
  CHECK(singular.max().item<double>() < 1.6);
}
