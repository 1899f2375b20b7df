// A task bridges a model and the engine: it owns the model and the datasets and hands out its
// parts: training (engine/task_training.h), validation (engine/validator.h) and, where it has
// them, prediction (engine/predictor.h) and deployment (engine/deployable.h). The engine owns
// everything about training (accumulation, AMP, clipping, EMA, schedule, checkpoints) and never
// knows which model it trains.
#pragma once
#include <cstdint>
#include <string>

#include <torch/nn/module.h>

#include "config/settings.h"
#include "engine/deployable.h"
#include "engine/predictor.h"
#include "engine/task_training.h"
#include "engine/validator.h"

namespace trainer {

class Task {
 public:
  Task() = default;
  // The parts a task hands out may hold references into it, so a task stays where it was made.
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual torch::nn::Module& model() = 0;
  virtual int64_t classes() const = 0;
  virtual TaskTraining& training() = 0;
  virtual Validator& validator() = 0;
  // For `trainer predict`; nullptr where the task has no prediction.
  virtual Predictor* predictor() { return nullptr; }
  // For `trainer export` and a deployed copy's val and predict; nullptr where the task's model
  // cannot leave the trainer.
  virtual Deployable* deployment() { return nullptr; }
  // Writes back what the task derived from the data (the OCR character set of `charset: labels`),
  // so the recipe saved with the weights rebuilds the same model without the training data.
  virtual void pin_derived_settings(Settings& settings) const {}
};

}  // namespace trainer
