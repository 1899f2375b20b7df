#include "engine/resume.h"

#include <algorithm>
#include <optional>

#include "config/recipe_keys.h"
#include "families/recipes.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// resume=true: the newest last.pt among <parent>/<name>, <name>2, <name>3, … (runs_parent).
std::filesystem::path latest_last_checkpoint(const Settings& settings) {
  const std::filesystem::path parent =
      runs_parent(settings.output.project, to_string(settings.run.task));
  std::filesystem::path newest;
  std::filesystem::file_time_type newest_time;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
    const std::string folder = entry.path().filename().string();
    if (folder.rfind(settings.output.name, 0) != 0) continue;
    const std::string suffix = folder.substr(settings.output.name.size());
    if (suffix.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto candidate = RunFolder{entry.path()}.last();
    if (!std::filesystem::is_regular_file(candidate)) continue;
    const auto time = std::filesystem::last_write_time(candidate);
    if (newest.empty() || time > newest_time) {
      newest = candidate;
      newest_time = time;
    }
  }
  if (newest.empty()) {
    throw UserError("resume=true: no " + RunFolder{parent / (settings.output.name + "*")}.last().string() +
                    " to resume from; give resume=PATH");
  }
  return newest;
}

// The working directory the run started in, when its folder says so: <that>/<parent>/<name> for a
// relative parent (runs_parent). Nothing for an absolute one or a folder moved elsewhere.
std::optional<std::filesystem::path> started_in(const std::filesystem::path& run_root, const Settings& saved) {
  const std::filesystem::path parent =
      runs_parent(saved.output.project, to_string(saved.run.task)).lexically_normal();
  if (parent.is_absolute()) return std::nullopt;
  std::filesystem::path folder = std::filesystem::absolute(run_root).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // a trailing slash
  folder = folder.parent_path();                                 // the name
  const std::vector<std::filesystem::path> below(parent.begin(), parent.end());
  for (auto part = below.rbegin(); part != below.rend(); ++part) {
    if (part->empty()) continue;
    if (folder.filename() != *part) return std::nullopt;
    folder = folder.parent_path();
  }
  return folder;
}

// The recipe's relative paths name what the run read from where it started. Resumed from another
// working directory (Ultralytics' `cd runs/detect/train/weights && yolo train resume model=last.pt`),
// each that is found from there and not from here is taken from there.
void find_paths_from(const std::filesystem::path& started, Settings& settings) {
  for (const auto& key : recipe_keys()) {
    if (!key.is_path) continue;
    const std::filesystem::path value = key.show(settings);
    std::error_code error;
    const auto& exceptions = key.path_exceptions;
    if (value.empty() || value.is_absolute() ||
        std::find(exceptions.begin(), exceptions.end(), value.string()) != exceptions.end() ||
        std::filesystem::exists(value, error) || !std::filesystem::exists(started / value, error)) {
      continue;
    }
    RecipeValue rebased;
    rebased.text = (started / value).lexically_normal().string();
    rebased.where = "resume: " + key.name + " from " + started.string();
    key.assign(settings, rebased);
  }
}

}  // namespace

ResumePoint prepare_resume(const Settings& settings, const std::vector<std::string>& overrides) {
  ResumePoint point;
  point.checkpoint_path = settings.output.resume == "true" ? latest_last_checkpoint(settings)
                                                    : std::filesystem::path(settings.output.resume);
  point.checkpoint = load_checkpoint(point.checkpoint_path);
  if (is_stripped(point.checkpoint)) {
    throw UserError(point.checkpoint_path.string() +
                    " holds the weights alone (best.pt is stripped, as "
                    "Ultralytics' is); resume from the run's last.pt");
  }
  point.run_folder = RunFolder::of_checkpoint(point.checkpoint_path);
  const std::string origin = point.checkpoint_path.string() + ":recipe";
  // A model built from a model-definition file continues from the text the checkpoint carries.
  const CarriedDefinition carried = carried_definition(point.checkpoint.card);
  Settings saved = load_settings_from_yaml(point.checkpoint.recipe, origin, {}, carried);
  point.settings = load_settings_from_yaml(point.checkpoint.recipe, origin, overrides, carried);
  if (const auto started = started_in(point.run_folder.root, saved)) {
    find_paths_from(*started, saved);
    find_paths_from(*started, point.settings);
  }

  std::vector<std::string> changed;
  std::vector<std::string> resumable;
  for (const auto& key : recipe_keys()) {
    if (key.resumable) {
      resumable.push_back(key.name);
      continue;
    }
    if (key.show(saved) != key.show(point.settings)) {
      changed.push_back(key.name + " (" + key.show(saved) + " -> " + key.show(point.settings) + ")");
    }
  }
  if (!changed.empty() && !point.settings.output.resume_force) {
    throw UserError("resuming " + point.checkpoint_path.string() + " with changed " + join(changed, ", ") +
                    " would not continue the same run; only " + join(resumable, ", ") +
                    " may change (add resume_force to resume anyway)");
  }
  if (!changed.empty()) spdlog::warn("resume_force: resuming with changed {}", join(changed, ", "));
  const int64_t updates = point.settings.schedule.updates;
  if (updates > 0 && point.checkpoint.updates >= updates) {
    throw UserError(point.checkpoint_path.string() + " finished all " + std::to_string(updates) +
                    " updates; give updates=N with N > " + std::to_string(point.checkpoint.updates) + " to train on");
  }
  if (updates == 0 && point.checkpoint.epoch >= point.settings.schedule.epochs) {
    throw UserError(point.checkpoint_path.string() + " finished all " + std::to_string(point.settings.schedule.epochs) +
                    " epochs; give epochs=N with N > " + std::to_string(point.checkpoint.epoch) + " to train on");
  }
  return point;
}

}  // namespace trainer
