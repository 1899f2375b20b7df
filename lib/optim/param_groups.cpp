#include "optim/param_groups.h"

namespace trainer {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::vector<ParamGroup> make_param_groups(torch::nn::Module& model, double lr, double weight_decay,
                                          bool muon) {
  std::vector<ParamGroup> groups{{"weights", {}, lr, weight_decay, ParamRole::weights},
                                 {"norm", {}, lr, 0.0, ParamRole::norm},
                                 {"bias", {}, lr, 0.0, ParamRole::bias}};
  if (muon) groups.push_back({"muon", {}, lr, weight_decay, ParamRole::weights, 1, true});
  std::vector<std::vector<std::string>> names(groups.size());
  for (const auto& item : model.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const std::string& name = item.key();
    // Norm-layer scales are the remaining 1-d parameters (timm's ndim <= 1 rule).
    const size_t group = muon && item.value().dim() >= 2 ? 3
                         : ends_with(name, "bias")       ? 2
                         : item.value().dim() <= 1       ? 1
                                                         : 0;
    groups[group].params.push_back(item.value());
    names[group].push_back(name);
  }
  if (!muon) return groups;
  std::vector<ParamGroup> split;
  for (size_t g = 0; g < groups.size(); ++g) {
    ParamGroup faster = groups[g], rest = groups[g];
    faster.name += ".x3";
    faster.lr_scale = 3;
    faster.lr *= 3;
    faster.params.clear();
    rest.params.clear();
    for (size_t i = 0; i < names[g].size(); ++i) {
      const bool class_branch = names[g][i].find("23") != std::string::npos &&
                                names[g][i].find("cv3") != std::string::npos;
      (class_branch ? faster : rest).params.push_back(groups[g].params[i]);
    }
    if (!faster.params.empty()) split.push_back(std::move(faster));
    if (!rest.params.empty()) split.push_back(std::move(rest));
  }
  return split;
}

}  // namespace trainer
