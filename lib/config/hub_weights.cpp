#include "config/hub_weights.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <utility>

namespace trainer {
namespace {

namespace fs = std::filesystem;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

fs::path home_cache() {
  const std::string xdg = environment("XDG_CACHE_HOME");
  return xdg.empty() ? fs::path(environment("HOME")) / ".cache" : fs::path(xdg);
}

fs::path hugging_face_cache() {
  if (const std::string hub = environment("HF_HUB_CACHE"); !hub.empty()) return hub;
  if (const std::string home = environment("HF_HOME"); !home.empty()) return fs::path(home) / "hub";
  return home_cache() / "huggingface" / "hub";
}

fs::path torch_hub_checkpoints() {
  const std::string home = environment("TORCH_HOME");
  return (home.empty() ? home_cache() / "torch" : fs::path(home)) / "hub" / "checkpoints";
}

// The entries of `folder` (sorted) whose names `keep` accepts.
std::vector<fs::path> entries(const fs::path& folder,
                              const std::function<bool(const std::string&)>& keep) {
  std::vector<fs::path> found;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return found;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (keep(entry.path().filename().string())) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The weights file of one cached repository: any snapshot's model.safetensors, else
// pytorch_model.bin.
std::optional<std::string> snapshot_weights(const fs::path& repository) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin"}) {
    for (const fs::path& snapshot :
         entries(repository / "snapshots", [](const std::string&) { return true; })) {
      std::error_code error;
      if (fs::is_regular_file(snapshot / name, error)) return (snapshot / name).string();
    }
  }
  return std::nullopt;
}

// The tag timm's create_model(NAME, pretrained=True) loads: the first of the architecture's tags in
// timm/models/resnet.py's default_cfgs.
std::optional<std::string> timm_default_tag(const std::string& architecture) {
  static const std::vector<std::pair<std::string, std::string>> tags = {
      {"resnet18", "a1_in1k"},   {"resnet34", "a1_in1k"},   {"resnet50", "a1_in1k"},
      {"resnet101", "a1h_in1k"}, {"resnet152", "a1h_in1k"},
  };
  for (const auto& [name, tag] : tags) {
    if (name == architecture) return tag;
  }
  return std::nullopt;
}

// The cached repositories `model` may be read from, in the order they are tried.
std::vector<fs::path> hub_repositories(const fs::path& hub, const std::string& model) {
  const std::string repository = "models--timm--" + model;
  if (model.find('.') != std::string::npos) return {hub / repository};
  if (const std::optional<std::string> tag = timm_default_tag(model))
    return {hub / (repository + "." + *tag), hub / repository};
  return entries(hub, [&](const std::string& name) {
    return name == repository || name.rfind(repository + ".", 0) == 0;
  });
}

}  // namespace

HubWeights find_hub_weights(const std::string& model) {
  HubWeights result;
  const bool tagged = model.find('.') != std::string::npos;
  const fs::path hub = hugging_face_cache();
  const std::optional<std::string> tag = tagged ? std::nullopt : timm_default_tag(model);
  const std::string repository = "models--timm--" + model + (tag ? "." + *tag : tagged ? "" : "[.TAG]");
  result.looked.push_back((hub / repository / "snapshots" / "*" / "model.safetensors").string() +
                          " (or pytorch_model.bin)");
  for (const fs::path& folder : hub_repositories(hub, model)) {
    if ((result.file = snapshot_weights(folder))) return result;
  }
  const std::string stem = tagged ? model.substr(0, model.find('.')) : model;
  const fs::path checkpoints = torch_hub_checkpoints();
  result.looked.push_back((checkpoints / (stem + "-*.pth")).string());
  const auto is_torchvision = [&](const std::string& name) {
    return name.rfind(stem + "-", 0) == 0 && fs::path(name).extension() == ".pth";
  };
  for (const fs::path& file : entries(checkpoints, is_torchvision)) {
    result.file = file.string();
    return result;
  }
  return result;
}

}  // namespace trainer
