// The user's settings file, as Ultralytics keeps its settings.json (SettingsManager in
// ultralytics/utils/__init__.py): where datasets and runs go, for every command of this user.
// It lives at $XDG_CONFIG_HOME/trainer/settings.yaml (~/.config/trainer/settings.yaml without
// XDG_CONFIG_HOME); `trainer settings key=value` changes it, `trainer settings reset` removes it.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

struct UserSettings {
  // Where a data.yaml's relative `path:` is looked for after the working directory and the YAML's
  // own folder (Ultralytics' datasets_dir).
  std::string datasets_dir = "datasets";
  // The default project: run folders go to <runs_dir>/<task>/<name> unless project= is given.
  std::string runs_dir = "runs";
  // Where a bare Ultralytics model name's NAME.pt is looked for after the working directory
  // (Ultralytics' weights_dir, read by attempt_download_asset).
  std::string weights_dir = "weights";
};

std::filesystem::path user_settings_file();

// The file's settings over the defaults; the defaults where there is no file. A malformed file
// or an unknown key is a UserError naming the file and line.
UserSettings load_user_settings();

// Each setting with its value, in file order, for `trainer settings`.
std::vector<std::pair<std::string, std::string>> setting_rows(const UserSettings& settings);

// Applies `key=value` (a UserError for an unknown key or an empty value) and writes the file
// atomically; returns the settings written.
UserSettings update_user_settings(const std::vector<std::string>& assignments);

// Removes the file: the defaults apply again.
void reset_user_settings();

// The folder a data.yaml's relative path is tried against last.
std::filesystem::path datasets_dir();

}  // namespace trainer
