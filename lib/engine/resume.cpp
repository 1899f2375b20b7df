#include "engine/resume.h"

#include "config/recipe.h"
#include "config/recipe_keys.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// resume=true: the newest last.pt among <project>/<task>/<name>, <name>2, <name>3, …
std::filesystem::path latest_last_checkpoint(const Settings& settings) {
  const std::filesystem::path parent = std::filesystem::path(settings.project) / to_string(settings.task);
  std::filesystem::path newest;
  std::filesystem::file_time_type newest_time;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
    const std::string folder = entry.path().filename().string();
    if (folder.rfind(settings.name, 0) != 0) continue;
    const std::string suffix = folder.substr(settings.name.size());
    if (suffix.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto candidate = entry.path() / "weights" / "last.pt";
    if (!std::filesystem::is_regular_file(candidate)) continue;
    const auto time = std::filesystem::last_write_time(candidate);
    if (newest.empty() || time > newest_time) {
      newest = candidate;
      newest_time = time;
    }
  }
  if (newest.empty()) {
    throw UserError("resume=true: no " + (parent / (settings.name + "*") / "weights" / "last.pt").string() +
                    " to resume from; give resume=PATH");
  }
  return newest;
}

}  // namespace

const std::vector<std::string>& resumable_keys() {
  // The launch keys too: a checkpoint resumes with any world size (docs/training.md says what is exact).
  static const std::vector<std::string> keys{
      "epochs",  "workers",     "prefetch",  "device",      "threads",      "save_period", "save_interval",
      "patience", "val",        "plots",     "resume",      "resume_force", "project",     "name",
      "exist_ok", "nproc",      "nnodes",    "node_rank",   "master_addr",  "master_port", "dist_backend",
      "dist_timeout", "compile", "compile_cache_dir", "compile_cache_limit", "cache"};
  return keys;
}

ResumePoint prepare_resume(const Settings& settings, const std::vector<std::string>& overrides) {
  ResumePoint point;
  point.checkpoint_path = settings.resume == "true" ? latest_last_checkpoint(settings)
                                                    : std::filesystem::path(settings.resume);
  point.checkpoint = load_checkpoint(point.checkpoint_path);
  point.run_folder = std::filesystem::absolute(point.checkpoint_path).parent_path().parent_path();
  const std::string origin = point.checkpoint_path.string() + ":recipe";
  const Settings saved = load_settings_from_yaml(point.checkpoint.recipe, origin, {});
  point.settings = load_settings_from_yaml(point.checkpoint.recipe, origin, overrides);

  std::vector<std::string> changed;
  for (const auto& key : recipe_keys()) {
    const auto& allowed = resumable_keys();
    if (std::find(allowed.begin(), allowed.end(), key.name) != allowed.end()) continue;
    if (key.show(saved) != key.show(point.settings)) {
      changed.push_back(key.name + " (" + key.show(saved) + " -> " + key.show(point.settings) + ")");
    }
  }
  if (!changed.empty() && !point.settings.resume_force) {
    throw UserError("resuming " + point.checkpoint_path.string() + " with changed " + join(changed, ", ") +
                    " would not continue the same run; only " + join(resumable_keys(), ", ") +
                    " may change (add resume_force to resume anyway)");
  }
  if (!changed.empty()) spdlog::warn("resume_force: resuming with changed {}", join(changed, ", "));
  if (point.checkpoint.epoch >= point.settings.epochs) {
    throw UserError(point.checkpoint_path.string() + " finished all " + std::to_string(point.settings.epochs) +
                    " epochs; give epochs=N with N > " + std::to_string(point.checkpoint.epoch) + " to train on");
  }
  return point;
}

}  // namespace trainer
