#include "config/model_family.h"

#include <vector>

namespace trainer {
namespace {

struct ModelFamily {
  const char* prefix;
  const char* shown;  // how messages name the family's models
  TaskKind task;
  const char* default_member;
};

const std::vector<ModelFamily>& families() {
  static const std::vector<ModelFamily> table = {
      {"resnet", "resnet18/34/50", TaskKind::classify, "resnet18"},
      {"crnn", "crnn", TaskKind::ocr, "crnn"},
      {"yolov8", "yolov8n/s/m/l/x", TaskKind::detect, "yolov8n"},
  };
  return table;
}

}  // namespace

std::optional<TaskKind> task_of_model(const std::string& model) {
  for (const auto& family : families()) {
    if (model.rfind(family.prefix, 0) == 0) return family.task;
  }
  return std::nullopt;
}

std::string model_families_text() {
  std::string text;
  const auto& table = families();
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0) text += i + 1 == table.size() ? " or " : ", ";
    text += std::string(table[i].shown) + " (task=" + to_string(table[i].task) + ")";
  }
  return text;
}

std::string default_model(TaskKind task) {
  for (const auto& family : families()) {
    if (family.task == task) return family.default_member;
  }
  return families().front().default_member;
}

}  // namespace trainer
