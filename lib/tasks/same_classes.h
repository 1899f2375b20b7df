// A saved model validated on a data set other than its own: the data's classes must be the
// model's, in the same order, or every score would compare the wrong classes.
#pragma once
#include <string>
#include <vector>

namespace trainer {

// UserError naming `data` and the first difference (the class counts, or the first index whose
// names differ) unless `data_names` equals `model_names`.
void require_same_classes(const std::string& data, const std::vector<std::string>& data_names,
                          const std::vector<std::string>& model_names);

}  // namespace trainer
