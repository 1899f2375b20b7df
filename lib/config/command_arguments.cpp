#include "config/command_arguments.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "config/recipe.h"
#include "config/recipe_keys.h"
#include "util/text.h"

namespace trainer {
namespace {

// timm's short flags.
std::string long_name(const std::string& flag) {
  if (flag == "-b") return "batch_size";
  if (flag == "-j") return "workers";
  if (flag == "-vb") return "validation_batch_size";
  if (flag.rfind("--", 0) == 0 && flag.size() > 2) return flag.substr(2);
  return "";
}

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// What may follow a flag as its value: no other flag, no key=value (`--lr -0.1` included).
bool is_flag_value(const std::string& argument) {
  return !argument.empty() && argument.find('=') == std::string::npos &&
         (argument[0] != '-' || is_number(argument));
}

bool is_weights_file(const std::string& argument) {
  const std::string extension = to_lower(std::filesystem::path(argument).extension().string());
  return extension == ".pt" || extension == ".pth" || extension == ".safetensors" ||
         extension == ".bin";
}

// Ultralytics warns and drops a trailing comma (`epochs=3,`).
std::string without_trailing_comma(std::string argument) {
  if (argument.size() > 1 && argument.back() == ',') argument.pop_back();
  return argument;
}

// The key a flag sets (our key, or the one timm's spelling belongs to); nullptr for none.
const RecipeKey* key_of_flag(const std::string& name) {
  if (const RecipeKey* key = find_recipe_key(name)) return key;
  const std::optional<ForeignMatch> timm = find_spelling_of(ForeignTool::timm, name);
  return timm && timm->spelling.meaning == ForeignMeaning::same ? timm->key : nullptr;
}

// timm's flags of nargs='+', '*' or 3 that have no list key here: their values are read all the same,
// so that the error names the flag with what it was given.
bool takes_several(const std::string& name, const RecipeKey* key) {
  static const std::vector<std::string> several = {
      "input_size", "lr_noise", "scale", "ratio", "mean", "std", "opt_betas", "cutmix_minmax", "model_kwargs",
      "opt_kwargs", "device_modules", "train_crop_mode", "wandb_tags", "train_img_sizes", "train_batch_sizes",
      "train_size_probs", "naflex_train_seq_lens", "naflex_patch_sizes", "naflex_patch_size_probs"};
  return (key && key->is_list) || std::find(several.begin(), several.end(), name) != several.end();
}

// timm's positional data folder: a bare word that is no key and names a path.
bool is_data_folder(const std::string& argument) {
  if (argument.empty() || argument[0] == '-' || argument.find('=') != std::string::npos ||
      find_recipe_key(argument) || find_foreign_spelling(argument))
    return false;
  std::error_code error;
  return argument.find('/') != std::string::npos || std::filesystem::is_directory(argument, error);
}

// How many of the arguments after a flag are its values.
size_t flag_value_count(const std::string& name, const std::vector<std::string>& merged,
                        size_t next) {
  const RecipeKey* key = key_of_flag(name);
  const auto value_at = [&](size_t i) { return i < merged.size() && is_flag_value(merged[i]); };
  if (takes_several(name, key)) {
    size_t count = 0;
    while (value_at(next + count)) ++count;
    return count;
  }
  if (!value_at(next)) return 0;
  // timm's switches without a key here (--pin-mem) leave its data folder where it stands.
  std::error_code error;
  if (!key && std::filesystem::is_directory(merged[next], error)) return 0;
  // A switch's flag (--amp, --pretrained) leaves timm's data folder where it stands.
  if (key && key->is_bool)
    return is_data_folder(merged[next]) && !is_weights_file(merged[next]) ? 0 : 1;
  return 1;
}

// The override's name: a flag's dashes are underscores, and one of timm's own spellings keeps its
// leading dashes, so that it is read as timm's.
std::string override_name(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return find_spelling_of(ForeignTool::timm, name) ? "--" + name : name;
}

}  // namespace

CommandOverrides read_command_arguments(const std::vector<std::string>& arguments) {
  const std::vector<std::string> merged = normalize_overrides(arguments);
  CommandOverrides result;
  bool flags = false;
  bool key_values = false;
  for (size_t i = 0; i < merged.size(); ++i) {
    const std::string argument = without_trailing_comma(merged[i]);
    std::string flag = long_name(argument.substr(0, argument.find('=')));
    if (flag.empty() && is_data_folder(argument)) {
      flags = true;
      result.overrides.push_back("--data_dir=" + argument);
    } else if (flag.empty()) {
      key_values = key_values || argument.find('=') != std::string::npos;
      result.overrides.push_back(argument);
    } else if (const auto equals = argument.find('='); equals != std::string::npos) {
      flags = true;
      result.overrides.push_back(override_name(flag) + "=" + argument.substr(equals + 1));
    } else {
      flags = true;
      std::replace(flag.begin(), flag.end(), '-', '_');
      std::vector<std::string> values;
      for (size_t count = flag_value_count(flag, merged, i + 1); count > 0; --count)
        values.push_back(without_trailing_comma(merged[++i]));
      result.overrides.push_back(values.empty() ? override_name(flag)
                                                : override_name(flag) + "=" + join(values, ","));
    }
  }
  result.dialect = flags && !key_values ? Dialect::timm : Dialect::ultralytics;
  // timm's --mixup is MixUp's alpha (classification), Ultralytics' mixup detection's probability.
  if (result.dialect == Dialect::timm) {
    for (std::string& override : result.overrides) {
      if (override == "mixup" || override.rfind("mixup=", 0) == 0) override.insert(5, "_alpha");
    }
  }
  return result;
}

std::vector<std::string> overrides_of_arguments(const std::vector<std::string>& arguments) {
  return read_command_arguments(arguments).overrides;
}

}  // namespace trainer
