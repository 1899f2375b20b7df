#include "io/state_dict.h"

#include <set>
#include <sstream>
#include <unordered_map>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

void collect(const torch::nn::Module& module, const std::string& prefix,
             std::vector<std::pair<std::string, torch::Tensor>>& out) {
  for (const auto& item : module.named_parameters(/*recurse=*/false)) {
    if (item.value().defined()) out.emplace_back(prefix + item.key(), item.value().detach());
  }
  for (const auto& item : module.named_buffers(/*recurse=*/false)) {
    if (item.value().defined()) out.emplace_back(prefix + item.key(), item.value().detach());
  }
  for (const auto& child : module.named_children()) {
    collect(*child.value(), prefix + child.key() + ".", out);
  }
}

// Wrappers add these in any combination, e.g. a compiled DDP model saves `_orig_mod.module.`.
std::string strip_wrapper_prefixes(std::string key) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const std::string prefix : {"module.", "_orig_mod."}) {
      if (key.rfind(prefix, 0) == 0) {
        key.erase(0, prefix.size());
        stripped = true;
      }
    }
  }
  return key;
}

std::string shape_text(const torch::Tensor& tensor) {
  std::ostringstream text;
  text << tensor.sizes();
  return text.str();
}

std::string problems_text(const LoadReport& report) {
  std::vector<std::string> parts;
  // Counts, and the first few of each: a file of another architecture would otherwise list every key.
  if (!report.missing.empty()) {
    parts.push_back(std::to_string(report.missing.size()) + " missing: " + join_first(report.missing, ", "));
  }
  if (!report.unexpected.empty()) {
    parts.push_back(std::to_string(report.unexpected.size()) + " unexpected: " + join_first(report.unexpected, ", "));
  }
  if (!report.mismatched.empty()) {
    parts.push_back(std::to_string(report.mismatched.size()) +
                    " of another shape: " + join_first(report.mismatched, "; "));
  }
  return join(parts, "; ");
}

}  // namespace

std::vector<std::pair<std::string, torch::Tensor>> state_dict(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  collect(module, "", out);
  return out;
}

LoadReport load_state_dict(torch::nn::Module& module,
                           const std::map<std::string, torch::Tensor>& weights, bool strict) {
  const auto targets = state_dict(module);
  std::unordered_map<std::string, torch::Tensor> target_by_name(targets.begin(), targets.end());

  LoadReport report;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // (model tensor, file tensor)
  std::set<std::string> seen;
  for (const auto& [file_key, source] : weights) {
    const std::string name = strip_wrapper_prefixes(file_key);
    const auto target = target_by_name.find(name);
    if (target == target_by_name.end() || !seen.insert(name).second) {
      report.unexpected.push_back(file_key);
    } else if (!source.defined() || source.sizes() != target->second.sizes()) {
      report.mismatched.push_back(name + ": file " +
                                  (source.defined() ? shape_text(source) : "undefined") +
                                  " vs model " + shape_text(target->second));
    } else {
      copies.emplace_back(target->second, source);
      report.loaded.push_back(name);
    }
  }
  for (const auto& [name, tensor] : targets) {
    if (seen.count(name) == 0) report.missing.push_back(name);
  }

  if (strict &&
      (!report.missing.empty() || !report.unexpected.empty() || !report.mismatched.empty())) {
    throw UserError("weights do not fit the model (" + problems_text(report) + ")");
  }
  torch::NoGradGuard no_grad;
  for (auto& [target, source] : copies) target.copy_(source);
  return report;
}

std::map<std::string, torch::Tensor> tensor_map(const c10::IValue& dict) {
  if (!dict.isGenericDict()) {
    throw UserError("expected a dict of name -> tensor, got " + dict.tagKind());
  }
  std::map<std::string, torch::Tensor> out;
  for (const auto& entry : dict.toGenericDict()) {
    if (!entry.key().isString()) {
      throw UserError("expected a dict of name -> tensor, got a " + entry.key().tagKind() + " key");
    }
    const std::string& name = entry.key().toStringRef();
    if (!entry.value().isTensor()) {
      throw UserError("expected a dict of name -> tensor, but '" + name + "' holds " +
                      entry.value().tagKind());
    }
    out.emplace(name, entry.value().toTensor());
  }
  return out;
}

}  // namespace trainer
