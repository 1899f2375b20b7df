#include "tasks/task_factory.h"

#include <spdlog/spdlog.h>

#include "io/pretrained.h"
#include "models/trainable.h"
#include "tasks/classify_task.h"
#include "tasks/detect_task.h"
#include "tasks/ocr_task.h"
#include "util/text.h"

namespace trainer {

std::unique_ptr<Task> make_task(const Settings& settings, bool with_train_split) {
  std::unique_ptr<Task> task;
  switch (settings.task) {
    case TaskKind::classify: task = std::make_unique<ClassifyTask>(settings, with_train_split); break;
    case TaskKind::ocr: task = std::make_unique<OcrTask>(settings, with_train_split); break;
    case TaskKind::detect: task = std::make_unique<DetectTask>(settings, with_train_split); break;
  }
  // Classification draws its crops from whole photographs and text lines decode in microseconds:
  // keeping decoded images is for detection only.
  if (settings.cache != ImageCacheMode::off && settings.task != TaskKind::detect) {
    spdlog::warn("cache={} keeps images for task=detect only; task={} reads its files every epoch",
                 to_string(settings.cache), to_string(settings.task));
  }
  // Weights load before anything wraps or captures the model (R5, R20).
  if (!settings.pretrained.empty()) load_pretrained(task->model(), settings.pretrained);
  if (with_train_split && !settings.freeze.empty()) {
    const std::vector<std::string> frozen = freeze_layers(task->model(), settings.freeze);
    const ParameterCounts counts = count_parameters(task->model());
    spdlog::info("freeze: {} ({} of {} parameters train)", join(frozen, ", "), counts.trainable, counts.total);
  }
  return task;
}

}  // namespace trainer
