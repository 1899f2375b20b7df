#include "tasks/task_factory.h"

#include <spdlog/spdlog.h>

#include "data/read_image.h"
#include "io/pretrained.h"
#include "models/trainable.h"
#include "tasks/classify_task.h"
#include "tasks/detect_task.h"
#include "tasks/ocr_task.h"
#include "util/text.h"

namespace trainer {

std::unique_ptr<Task> make_task(const Settings& settings, DataSplits splits, const ModelCard* card) {
  TORCH_INTERNAL_ASSERT(card != nullptr || splits != DataSplits::none, "a task without data needs a model card");
  std::unique_ptr<Task> task;
  set_max_image_pixels(settings.data.max_image_pixels);  // for every image this process decodes
  const SharedTaskSettings shared{settings.run, settings.data, settings.schedule};
  switch (settings.run.task) {
    case TaskKind::classify:
      task = std::make_unique<ClassifyTask>(shared, settings.classify, splits, card);
      break;
    case TaskKind::ocr:
      task = std::make_unique<OcrTask>(shared, settings.ocr, splits);
      break;
    case TaskKind::detect:
      task = std::make_unique<DetectTask>(shared, settings.detect, splits, card);
      break;
  }
  // Weights load before anything wraps or captures the model (R5, R20).
  if (!settings.run.pretrained.empty()) load_pretrained(task->model(), settings.run.pretrained);
  if (splits == DataSplits::train_and_val && !settings.run.freeze.empty()) {
    const std::vector<std::string> frozen = freeze_layers(task->model(), settings.run.freeze);
    const ParameterCounts counts = count_parameters(task->model());
    spdlog::info("freeze: {} ({} of {} parameters train)", join(frozen, ", "), counts.trainable, counts.total);
  }
  return task;
}

}  // namespace trainer
