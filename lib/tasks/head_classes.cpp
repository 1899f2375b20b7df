#include "tasks/head_classes.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "util/error.h"

namespace trainer {

std::vector<std::string> with_unused_classes(std::vector<std::string> data_names, size_t count) {
  for (size_t index = data_names.size(); index < count; ++index) data_names.push_back(fmt::format("unused_{}", index));
  return data_names;
}

std::vector<std::string> head_class_names(const std::string& data, const std::vector<std::string>& data_names,
                                          std::optional<int64_t> num_classes) {
  const auto folders = static_cast<int64_t>(data_names.size());
  if (!num_classes || *num_classes == folders) return data_names;
  if (*num_classes < folders) {
    throw UserError(fmt::format("num_classes={} is fewer than the {} classes of data={}: every class needs an output "
                                "of the head; leave num_classes out, or set it to {} or more",
                                *num_classes, folders, data, folders));
  }
  // timm builds the head it is asked for; labels stay below the data's count, so the extra outputs are
  // only ever trained towards zero.
  spdlog::warn("num_classes={}: the head has {} outputs for the {} classes of data={}; outputs {} to {} are named "
               "unused_<index> and no label is ever theirs",
               *num_classes, *num_classes, folders, data, folders, *num_classes - 1);
  return with_unused_classes(data_names, static_cast<size_t>(*num_classes));
}

}  // namespace trainer
