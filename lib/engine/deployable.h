// A task whose trained model can leave the trainer: what an exported copy needs besides its
// weights (ModelCard), and validation and prediction run on such a copy (an InferenceModel, e.g.
// an ONNX file in OpenCV DNN) instead of the task's module, with the same pre- and post-processing.
// A task hands it out by Task::deployment() (engine/task.h).
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "io/model_card.h"
#include "models/inference_model.h"
#include "onnx/onnx_export.h"

namespace trainer {

// Which splits of its data set a task opens. Training opens both; a saved model with a card
// (io/checkpoint.h) validates on the validation split alone and predicts and exports with none,
// taking class names, channels and normalisation from the card instead of the data.
enum class DataSplits { train_and_val, val, none };

class Deployable {
 public:
  virtual ~Deployable() = default;
  // Labels and input size; the caller adds the recipe.
  virtual ModelCard model_card() const = 0;
  // The task's model as an ONNX graph (`trainer export format=onnx`).
  virtual onnx_export::ModelGraph export_graph() const = 0;
  // From now on validation and prediction run `model` instead of the task's module.
  void deploy(std::shared_ptr<InferenceModel> model) { deployed_ = std::move(model); }
  // What validation and prediction run, for reports: "LibTorch" or the deployed copy's description.
  std::string runtime() const { return deployed_ ? deployed_->description() : "LibTorch"; }

 protected:
  std::shared_ptr<InferenceModel> deployed_;  ///< null: the task's module runs
};

}  // namespace trainer
