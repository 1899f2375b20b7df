#include "config/user_settings.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

using Field = std::string UserSettings::*;

const std::vector<std::pair<std::string, Field>>& fields() {
  static const std::vector<std::pair<std::string, Field>> table = {
      {"datasets_dir", &UserSettings::datasets_dir},
      {"runs_dir", &UserSettings::runs_dir},
      {"weights_dir", &UserSettings::weights_dir},
  };
  return table;
}

Field field_of(const std::string& key, const std::string& where) {
  for (const auto& [name, field] : fields()) {
    if (name == key) return field;
  }
  std::vector<std::string> names;
  for (const auto& entry : fields()) names.push_back(entry.first);
  // Ultralytics' other settings (sync, api keys, integrations) concern downloads and services that
  // are not part of this tool.
  throw UserError(where + ": unknown setting '" + key + "'" + did_you_mean(key, names) + "; settings are " +
                  join(names, ", "));
}

std::string text_of(const UserSettings& settings) {
  std::string text = "# trainer's user settings (`trainer settings key=value` changes them)\n";
  for (const auto& [name, value] : setting_rows(settings)) {
    YAML::Emitter quoted;
    quoted << value;
    text += name + ": " + quoted.c_str() + "\n";
  }
  return text;
}

}  // namespace

std::filesystem::path user_settings_file() {
  const char* config_home = std::getenv("XDG_CONFIG_HOME");
  if (config_home && *config_home) return std::filesystem::path(config_home) / "trainer" / "settings.yaml";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : ".") / ".config" / "trainer" / "settings.yaml";
}

UserSettings load_user_settings() {
  UserSettings settings;
  const std::filesystem::path file = user_settings_file();
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return settings;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& failure) {
    throw UserError(file.string() + ":" + std::to_string(failure.mark.line + 1) + ": invalid YAML: " + failure.msg);
  }
  if (root.IsNull()) return settings;
  if (!root.IsMap()) throw UserError(file.string() + ": settings are a mapping of key: value lines");
  for (const auto& entry : root) {
    const std::string where = file.string() + ":" + std::to_string(entry.first.Mark().line + 1);
    if (!entry.first.IsScalar()) throw UserError(where + ": a setting's name is a single word");
    const Field field = field_of(entry.first.Scalar(), where);
    if (!entry.second.IsScalar() || trim(entry.second.Scalar()).empty()) {
      throw UserError(where + ": a setting is one non-empty value");
    }
    settings.*field = trim(entry.second.Scalar());
  }
  return settings;
}

std::vector<std::pair<std::string, std::string>> setting_rows(const UserSettings& settings) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& [name, field] : fields()) rows.emplace_back(name, settings.*field);
  return rows;
}

UserSettings update_user_settings(const std::vector<std::string>& assignments) {
  UserSettings settings = load_user_settings();
  for (const std::string& assignment : assignments) {
    const auto equals = assignment.find('=');
    const std::string where = "setting '" + assignment + "'";
    const Field field = field_of(trim(assignment.substr(0, equals)), where);
    const std::string value = equals == std::string::npos ? "" : trim(assignment.substr(equals + 1));
    if (value.empty()) throw UserError(where + ": give a value, key=value");
    settings.*field = value;
  }
  const std::filesystem::path file = user_settings_file();
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  if (error) throw UserError("cannot create " + file.parent_path().string() + ": " + error.message());
  write_file_atomically(file, text_of(settings));
  return settings;
}

void reset_user_settings() {
  std::error_code error;
  std::filesystem::remove(user_settings_file(), error);
  if (error) throw UserError("cannot remove " + user_settings_file().string() + ": " + error.message());
}

std::filesystem::path datasets_dir() { return load_user_settings().datasets_dir; }

}  // namespace trainer
