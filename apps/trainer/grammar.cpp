#include "grammar.h"

#include <algorithm>
#include <optional>

#include "util/error.h"
#include "util/text.h"

namespace trainer::app {
namespace {

const std::vector<std::string> kTasks{"detect", "classify", "ocr"};
// Ultralytics' tasks that have no model here.
const std::vector<std::string> kOtherTasks{"segment", "pose", "obb"};

bool is_one_of(const std::string& word, const std::vector<std::string>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Takes the task word at `index`, if that argument is one.
std::optional<std::string> take_task(std::vector<std::string>& arguments, size_t index) {
  if (index >= arguments.size()) return std::nullopt;
  const std::string word = to_lower(arguments[index]);
  if (is_one_of(word, kOtherTasks)) {
    throw UserError("task '" + word + "' is not supported here; the tasks are " + join(kTasks, ", "));
  }
  if (!is_one_of(word, kTasks)) return std::nullopt;
  arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(index));
  return word;
}

// Ultralytics' `mode=train` names the mode as a key; taken out and put first.
void take_mode_key(std::vector<std::string>& arguments) {
  const auto mode = std::find_if(arguments.begin(), arguments.end(),
                                 [](const std::string& argument) { return argument.rfind("mode=", 0) == 0; });
  if (mode == arguments.end()) return;
  const std::string word = mode->substr(5);
  arguments.erase(mode);
  arguments.insert(arguments.begin(), word);
}

}  // namespace

std::vector<std::string> arguments_in_our_order(std::vector<std::string> arguments) {
  std::optional<std::string> task = take_task(arguments, 0);
  if (!arguments.empty() && arguments.front().find('=') != std::string::npos) take_mode_key(arguments);
  if (!task) task = take_task(arguments, 1);
  if (task && !arguments.empty() && arguments.front() != "export") arguments.push_back("task=" + *task);
  return arguments;
}

std::vector<std::string> with_resume_spelling(const std::vector<std::string>& overrides) {
  const auto is_bare_resume = [](const std::string& argument) {
    const std::string lowered = to_lower(argument);
    return lowered == "resume" || lowered == "resume=true";
  };
  const auto model = std::find_if(overrides.begin(), overrides.end(),
                                  [](const std::string& argument) { return argument.rfind("model=", 0) == 0; });
  const auto resume = std::find_if(overrides.begin(), overrides.end(), is_bare_resume);
  if (model == overrides.end() || resume == overrides.end()) return overrides;
  std::vector<std::string> spelled;
  for (auto argument = overrides.begin(); argument != overrides.end(); ++argument) {
    if (argument == resume) spelled.push_back("resume=" + model->substr(6));
    if (argument != resume && argument != model) spelled.push_back(*argument);
  }
  return spelled;
}

}  // namespace trainer::app
