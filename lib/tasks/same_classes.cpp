#include "tasks/same_classes.h"

#include <fmt/format.h>

#include "util/error.h"

namespace trainer {

void require_same_classes(const std::string& data, const std::vector<std::string>& data_names,
                          const std::vector<std::string>& model_names) {
  const std::string advice = "; validate on a data set with the model's classes, in its order";
  if (data_names.size() != model_names.size()) {
    throw UserError(fmt::format("data={} has {} classes, the model was trained on {}{}", data, data_names.size(),
                                model_names.size(), advice));
  }
  for (size_t i = 0; i < data_names.size(); ++i) {
    if (data_names[i] != model_names[i]) {
      throw UserError(fmt::format("data={}: class {} is '{}' there, '{}' in the model{}", data, i, data_names[i],
                                  model_names[i], advice));
    }
  }
}

}  // namespace trainer
