// A task's prediction part, for `trainer predict`: one line per image.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <torch/types.h>

namespace trainer {

struct PredictOptions {
  int64_t top_k = 5;  ///< classes listed per image (classification)
  int digits = 3;     ///< decimals of the scores shown
  std::filesystem::path parent = "runs";  ///< where a task that writes files makes <parent>/predict
  bool exist_ok = false;                   ///< reuse that folder instead of numbering predict2, predict3 …
};

class Predictor {
 public:
  virtual ~Predictor() = default;
  // One line per image ("path: result"); images are files or folders.
  virtual std::vector<std::string> predict(const std::vector<std::string>& sources, const torch::Device& device,
                                           const PredictOptions& options) = 0;
};

}  // namespace trainer
